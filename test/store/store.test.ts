import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { Store, type TrialRecord } from '../../src/store/store.js';
import { tempDir } from '../helpers/cli.js';
import type { TrialFields } from '../report/make-trials.js';

function trial(key: string, over: TrialFields = {}): TrialRecord {
  return {
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
    tests_failed: 2,
    tests_total: 2,
    files_changed: [],
    flags: ['x'],
    exit_kind: 'success',
    timed_out: false,
    error: null,
    error_stage: null,
    error_code: null,
    details: { a: 1 },
    started_at: '2026-01-01T00:00:00Z',
    finished_at: '2026-01-01T00:00:01Z',
    duration_ms: 1000,
    artifacts_dir: null,
    ...over,
  } as TrialRecord;
}

describe('Store', () => {
  it('uses WAL, migrates, round-trips trials and never stores one twice', () => {
    const path = join(tempDir(), 'r.sqlite');
    const s = Store.open(path);
    s.createRun({
      id: 'r1',
      created_at: '2026-01-01T00:00:00Z',
      finished_at: null,
      status: 'running',
      config: { agent: 'nop' },
      plan_size: 2,
    });
    expect(s.insertTrial(trial('k1'))).toBe(true);
    expect(s.insertTrial(trial('k1', { score: 1 }))).toBe(false);
    s.close();
    const again = Store.open(path);
    const ts = again.trials('r1');
    expect(ts).toHaveLength(1);
    expect(ts[0]).toMatchObject({ score: 0, flags: ['x'], details: { a: 1 }, timed_out: false });
    expect(again.getRun('r1')?.config).toEqual({ agent: 'nop' });
    again.close();
    const raw = new Database(path);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(raw.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
    raw.close();
  });

  it('refuses a database from a newer NanoBench with a clear message', () => {
    const path = join(tempDir(), 'r.sqlite');
    const raw = new Database(path);
    raw.pragma('user_version = 99');
    raw.close();
    expect(() => Store.open(path)).toThrow(/newer NanoBench/);
  });

  it('read-only: reads what a writer stores, refuses every write, never creates or migrates', () => {
    const dir = tempDir();
    const path = join(dir, 'r.sqlite');
    expect(() => Store.open(path, { readonly: true })).toThrow(/no such results database/);
    expect(existsSync(path)).toBe(false);
    const w = Store.open(path);
    w.createRun({
      id: 'r1',
      created_at: '2026-01-01T00:00:00Z',
      finished_at: null,
      status: 'running',
      config: { agent: 'nop' },
      plan_size: 3,
    });
    const ro = Store.open(path, { readonly: true });
    expect(ro.runProgress('r1')).toEqual({ status: 'running', trials: 0, last_id: 0 });
    // A writer's later trials are seen by the open reader (the viewer's live pages).
    w.insertTrial(trial('k1'));
    w.insertTrial(trial('k2', { status: 'scored', label: 'pass', score: 1 }));
    w.insertTrial(trial('k3', { status: 'error', label: null, score: null, error: 'boom' }));
    expect(ro.runProgress('r1')).toMatchObject({ trials: 3, last_id: 3 });
    expect(ro.runTallies()).toEqual([{ run_id: 'r1', trials: 3, scored: 2, passed: 1, errors: 1 }]);
    expect(ro.trialIndex('r1').map((t) => [t.id, t.label, t.duration_ms])).toEqual([
      [1, 'zero_signal', 1000],
      [2, 'pass', 1000],
      [3, null, 1000],
    ]);
    expect(ro.trial('r1', 2)).toMatchObject({ id: 2, trial_key: 'k2', details: { a: 1 } });
    expect(ro.trial('r1', 99)).toBeUndefined();
    expect(ro.trial('other', 2)).toBeUndefined();
    expect(() => ro.setRunStatus('r1', 'finished')).toThrow(/readonly/);
    expect(() => ro.insertTrial(trial('k4'))).toThrow(/readonly/);
    expect(w.getRun('r1')?.status).toBe('running');
    ro.close();
    w.close();
  });

  it('read-only refuses an older schema in one line instead of migrating it', () => {
    const path = join(tempDir(), 'r.sqlite');
    const raw = new Database(path);
    raw.exec(MIGRATIONS[0]);
    raw.pragma('user_version = 1');
    raw.close();
    expect(() => Store.open(path, { readonly: true })).toThrow(
      /older NanoBench \(schema 1 of \d+\); run "nanobench report --db .*" once/,
    );
    const after = new Database(path, { readonly: true });
    expect(after.pragma('user_version', { simple: true })).toBe(1);
    after.close();
  });
});
