// Issue 12: the stored run configuration is typed and versioned; runs stored before a field
// existed read with the one set of defaults.
import { describe, expect, it } from 'vitest';
import { autoConcurrency, RUN_DEFAULTS } from '../../src/run/config.js';
import { readRunConfig } from '../../src/run/stored-config.js';
import type { RunRecord } from '../../src/store/store.js';

const run = (config: Record<string, unknown>): RunRecord => ({
  id: 'r',
  created_at: '2026-01-01T00:00:00Z',
  finished_at: null,
  status: 'finished',
  config,
  plan_size: 1,
});

describe('readRunConfig', () => {
  it('a run stored before versions (no sandbox, integrity, digests) reads with the defaults', () => {
    const c = readRunConfig(
      run({ agent: 'oracle', datasets: ['/d'], models: [], modes: ['hinted'] }),
    );
    expect(c).toMatchObject({
      config_version: 1,
      agent: 'oracle',
      sandbox: RUN_DEFAULTS.sandbox,
      integrity: RUN_DEFAULTS.integrity,
      concurrency: autoConcurrency(),
      provision: RUN_DEFAULTS.provision,
      agent_info: {},
      task_digests: {},
    });
    expect(c.nanobench_version).toBeUndefined();
  });

  it('the defaults are one frozen object', () => {
    expect(Object.isFrozen(RUN_DEFAULTS)).toBe(true);
  });
});
