// Run options that would plan the same trials twice or without bound.

import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  autoConcurrency,
  MAX_CONCURRENCY,
  MAX_RUNS,
  resolveRunConfig,
} from '../../src/run/config.js';
import { EXAMPLES } from '../helpers/cli.js';

describe('resolveRunConfig', () => {
  it('a model named twice is planned once (its trials would collide and one be dropped)', () => {
    const c = resolveRunConfig([EXAMPLES], {
      agent: 'nanocoder',
      model: ['competent,flaky', 'competent'],
    });
    expect(c.models.map((m) => m.model)).toEqual(['competent', 'flaky']);
  });

  it('bounds --runs, --concurrency and the budgets', () => {
    const run = (o: Record<string, string>) => () =>
      resolveRunConfig([EXAMPLES], { agent: 'nanocoder', model: ['competent'], ...o });
    expect(run({ runs: String(MAX_RUNS) })().runs).toBe(MAX_RUNS);
    expect(run({ runs: String(MAX_RUNS + 1) })).toThrow(/--runs must be an integer from 1 to 1000/);
    expect(run({ concurrency: String(MAX_CONCURRENCY + 1) })).toThrow(/--concurrency/);
    expect(run({ tokenBudget: '1e300' })).toThrow(/--token-budget must be a positive integer/);
  });

  it('--concurrency auto (the default): one trial per core, as memory allows', () => {
    const c = (concurrency?: string) =>
      resolveRunConfig([EXAMPLES], { agent: 'nop', concurrency }).concurrency;
    expect(c()).toBe(autoConcurrency());
    expect(c('auto')).toBe(autoConcurrency());
    expect(autoConcurrency()).toBeGreaterThanOrEqual(1);
    expect(autoConcurrency()).toBeLessThanOrEqual(availableParallelism());
    expect(c('3')).toBe(3);
  });

  it('--provision names a mode, auto by default', () => {
    const p = (provision?: string) => () =>
      resolveRunConfig([EXAMPLES], { agent: 'nop', provision }).provision;
    expect(p()()).toBe('auto');
    expect(p('copy')()).toBe('copy');
    expect(p('tmpfs')).toThrow(/--provision must be auto, overlay, fuse-overlayfs, reflink, copy/);
  });
});
