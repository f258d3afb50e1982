// Issue 22 §6: a full disk mid-run stops the run resumable: the trial that could not be stored
// (or run) is left for --resume, the run is marked interrupted, and the error is one line that
// says how to go on. The end-to-end case (a real full file system) is in test/e2e/one-line.test.ts;
// here the store's own SQLITE_FULL, which that case cannot make on purpose.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { TrialSpec } from '../../src/run/plan.js';
import { executePlan, type TrialExecutor } from '../../src/run/runner.js';
import { Store, type TrialRecord } from '../../src/store/store.js';
import type { TrialEnv } from '../../src/trial/env.js';
import { RunPaths } from '../../src/trial/paths.js';
import { DiskFullError, isDiskFull } from '../../src/util/disk-full.js';
import { InfraError } from '../../src/util/errors.js';
import { tempDir } from '../helpers/cli.js';

const record = (key: string): TrialRecord => ({
  run_id: 'r1',
  trial_key: key,
  task_id: 't',
  agent: 'nop',
  provider: 'none',
  model: 'none',
  mode: 'hinted',
  attempt: 1,
  status: 'scored',
  score: 0,
  label: 'zero_signal',
  confidence_level: '1',
  tests_passed: 0,
  tests_failed: 1,
  tests_total: 1,
  files_changed: [],
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
});

function setup() {
  const db = join(tempDir(), 'r.sqlite');
  const store = Store.open(db);
  store.createRun({
    id: 'r1',
    created_at: '2026-01-01T00:00:00Z',
    finished_at: null,
    status: 'running',
    config: {},
    plan_size: 3,
  });
  const plan = ['a', 'b', 'c'].map((key) => ({ key }) as TrialSpec);
  const env = { runId: 'r1', paths: new RunPaths(db) } as unknown as Omit<TrialEnv, 'signal'>;
  return { db, store, plan, env };
}

/** Reports each pending trial in turn, stopping when the run is aborted. */
const reporting = (fail?: (key: string) => unknown): TrialExecutor => ({
  async execute(pending, { signal, onResult, onFatal }) {
    for (const spec of pending) {
      if (signal.aborted) return;
      const e = fail?.(spec.key);
      if (e) {
        onFatal?.(e);
        continue;
      }
      onResult(record(spec.key));
    }
  },
});

const sqliteFull = () => new Database.SqliteError('database or disk is full', 'SQLITE_FULL');

describe('a full disk during a run', () => {
  it('recognises the codes and the texts errors arrive with', () => {
    expect(isDiskFull(Object.assign(new Error('x'), { code: 'ENOSPC' }))).toBe(true);
    expect(isDiskFull(sqliteFull())).toBe(true);
    expect(isDiskFull(new Error('git apply: error: No space left on device'))).toBe(true);
    expect(isDiskFull(new Error('EACCES: permission denied'))).toBe(false);
  });

  it('a trial the store cannot write stops the run: interrupted, one line, resumable', async () => {
    const { db, store, plan, env } = setup();
    const insert = store.insertTrial.bind(store);
    store.insertTrial = (t) => {
      if (t.trial_key === 'b') throw sqliteFull();
      return insert(t);
    };
    const err = await executePlan({
      store,
      plan,
      env,
      concurrency: 1,
      executor: reporting(),
    }).catch((e) => e);
    expect(err).toBeInstanceOf(InfraError);
    expect(err.code).toBe('disk_full');
    expect(err.message).toBe(
      `the disk holding ${env.paths.root} is full (database or disk is full): run r1 stopped with 1 of 3 trials stored (those in flight were not); free some space, then finish it with "nanobench run --resume r1 --db ${db}"`,
    );
    expect(store.getRun('r1')?.status).toBe('interrupted');
    // Nothing after the failure was stored: --resume runs b and c.
    expect([...store.trialKeys('r1')]).toEqual(['a']);
  });

  it('a trial that ran out of disk is not stored either', async () => {
    const { store, plan, env } = setup();
    const full = new DiskFullError(env.paths.root, new Error('ENOSPC: no space left on device'));
    const executor = reporting((key) => (key === 'a' ? full : undefined));
    const err = await executePlan({ store, plan, env, concurrency: 1, executor }).catch((e) => e);
    expect(err.message).toMatch(/stopped with 0 of 3 trials stored/);
    expect(store.trialKeys('r1').size).toBe(0);
    expect(store.getRun('r1')?.status).toBe('interrupted');
  });
});
