// Issue #8: what merge accepts and refuses, on synthetic runs.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type MergeInput, mergeRuns } from '../../src/store/merge.js';
import { type RunRecord, Store, type TrialRecord } from '../../src/store/store.js';
import { RunPaths } from '../../src/trial/paths.js';
import { tempDir } from '../helpers/cli.js';

function run(id: string, over: Record<string, unknown> = {}): RunRecord {
  return {
    id,
    created_at: `2026-01-0${id.slice(-1)}T00:00:00Z`,
    finished_at: `2026-01-0${id.slice(-1)}T01:00:00Z`,
    status: 'finished',
    plan_size: 1,
    config: {
      agent: 'nanocoder',
      models: [{ provider: 'scripted', model: 'competent' }],
      modes: ['hinted'],
      runs: 1,
      datasets: [`/machine-${id}/examples`],
      agent_info: { nanocoder_version: '1.30.0', nanocoder_path: `/machine-${id}/cli.js` },
      task_digests: { 'textkit-001': 'abc' },
      ...over,
    },
  };
}

function trial(runId: string, key: string): TrialRecord {
  return {
    run_id: runId,
    trial_key: key,
    task_id: key.split('|')[0],
    agent: 'nanocoder',
    provider: 'scripted',
    model: 'competent',
    mode: 'hinted',
    attempt: Number(key.split('|')[1]),
    status: 'scored',
    score: 1,
    label: 'pass',
    confidence_level: '2',
    tests_passed: 1,
    tests_failed: 0,
    tests_total: 1,
    files_changed: ['a.js'],
    flags: [],
    exit_kind: 'success',
    timed_out: false,
    error: null,
    error_stage: null,
    error_code: null,
    details: {},
    started_at: '2026-01-01T00:00:00Z',
    finished_at: '2026-01-01T00:00:01Z',
    duration_ms: 1000,
    artifacts_dir: null,
  };
}

const shardInput = (i: number, of: number, over: Record<string, unknown> = {}): MergeInput => {
  const r = run(`r${i}`, { shard: { index: i, count: of }, full_plan_size: of, ...over });
  return { source: `s${i}.sqlite`, run: r, trials: [trial(r.id, `textkit-001|${i}`)] };
};

function merge(inputs: MergeInput[], force = false) {
  const db = join(tempDir(), 'out.sqlite');
  const store = Store.open(db);
  try {
    const result = mergeRuns(store, new RunPaths(db), inputs, { force, copyArtifacts: true });
    return { result, trials: store.trials(result.run.id), run: store.getRun(result.run.id)! };
  } finally {
    store.close();
  }
}

describe('merge', () => {
  it('shards of one plan become one finished run; machine-specific paths do not matter', () => {
    const { result, trials, run: merged } = merge([shardInput(2, 2), shardInput(1, 2)]);
    expect(result.warnings).toEqual([]);
    expect(merged).toMatchObject({ status: 'finished', plan_size: 2 });
    expect(merged.config.shard).toBeUndefined();
    expect(merged.config.merged_from).toHaveLength(2);
    expect(trials.map((t) => t.trial_key)).toEqual(['textkit-001|1', 'textkit-001|2']);
    expect(trials.every((t) => t.run_id === merged.id)).toBe(true);
  });

  it.each([
    [
      'a different Nanocoder version',
      { agent_info: { nanocoder_version: '1.31.0' } },
      /different agent builds/,
    ],
    [
      'different task content',
      { task_digests: { 'textkit-001': 'def' } },
      /different plans: task_digests/,
    ],
    [
      'other models',
      { models: [{ provider: 'scripted', model: 'other' }] },
      /different plans: models/,
    ],
    ['other modes', { modes: ['navigation'] }, /different plans: modes/],
    ['another runs count', { runs: 5 }, /different plans: runs/],
  ])('refuses %s unless forced', (_, over, why) => {
    const inputs = [shardInput(1, 2), shardInput(2, 2, over)];
    expect(() => merge(inputs)).toThrow(why);
    const { result } = merge(inputs, true);
    expect(result.warnings.join('\n')).toMatch(why);
  });

  it('refuses a shard given twice, mixed shard counts, and unsharded runs', () => {
    expect(() => merge([shardInput(1, 2), shardInput(1, 2)])).toThrow(/shard 1\/2 given twice/);
    expect(() => merge([shardInput(1, 2), shardInput(2, 3)])).toThrow(/same number of shards/);
    const plain = (id: string) => ({
      source: 'x',
      run: run(id),
      trials: [trial(id, `t|${id.slice(-1)}`)],
    });
    expect(() => merge([plain('r1'), plain('r2')])).toThrow(/not shards of one plan/);
  });

  it('a missing shard: merged, but unfinished, with the full plan size', () => {
    const { result, run: merged } = merge([shardInput(1, 3), shardInput(3, 3)]);
    expect(merged).toMatchObject({ status: 'interrupted', plan_size: 3, finished_at: null });
    expect(result.warnings.join()).toMatch(/shards 2\/3 missing/);
  });
});
