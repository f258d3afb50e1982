import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS } from '../../src/store/migrations.js';
import { Store, type TrialRecord } from '../../src/store/store.js';
import { tempDir } from '../helpers/cli.js';

function trial(key: string, over: Partial<TrialRecord> = {}): TrialRecord {
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
  };
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
});
