// Run options that would plan the same trials twice or without bound.

import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { providerConcurrency } from '../../src/provider/providers-config.js';
import {
  autoConcurrency,
  autoModelConcurrency,
  MAX_CONCURRENCY,
  MAX_RUNS,
  resolveRunConfig,
} from '../../src/run/config.js';
import { EXAMPLES, tempDir } from '../helpers/cli.js';

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

  it('--concurrency auto for Nanocoder: the agent slots of its providers plus two per core', () => {
    const c = (concurrency?: string) =>
      resolveRunConfig([EXAMPLES], { agent: 'nanocoder', model: ['competent'], concurrency })
        .concurrency;
    // The scripted server takes 16 requests at once, so it gets 24 agents.
    expect(c()).toBe(autoModelConcurrency(24));
    expect(autoModelConcurrency(24)).toBeLessThanOrEqual(24 + 2 * availableParallelism());
    expect(autoModelConcurrency(16)).toBeGreaterThanOrEqual(autoConcurrency());
    expect(c('3')).toBe(3);
  });

  it("a provider's request slots: its concurrency, else 1 on this machine and 16 hosted", () => {
    const file = join(tempDir('nb-slots-config-'), 'providers.json');
    const p = (name: string, base_url: string, extra = {}) => ({
      name,
      base_url,
      api_key_env: 'K',
      ...extra,
    });
    writeFileSync(
      file,
      JSON.stringify({
        providers: [
          p('ollama', 'http://localhost:11434/v1'),
          p('llamacpp', 'http://127.0.0.1:8080/v1'),
          p('hosted', 'https://api.example.com/v1'),
          p('capped', 'https://api.example.com/v1', { concurrency: 4 }),
        ],
      }),
    );
    expect(Object.fromEntries(providerConcurrency(file))).toEqual({
      scripted: 16,
      ollama: 1,
      llamacpp: 1,
      hosted: 16,
      capped: 4,
    });
  });

  it('--provision names a mode, auto by default', () => {
    const p = (provision?: string) => () =>
      resolveRunConfig([EXAMPLES], { agent: 'nop', provision }).provision;
    expect(p()()).toBe('auto');
    expect(p('copy')()).toBe('copy');
    expect(p('tmpfs')).toThrow(/--provision must be auto, overlay, fuse-overlayfs, reflink, copy/);
  });
});
