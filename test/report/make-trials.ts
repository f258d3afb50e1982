// Synthetic trials for report and statistics tests.
import type { Label } from '../../src/score/labels.js';
import type { RunRecord, TrialRecord } from '../../src/store/store.js';

/** Any of a trial's fields, each of any outcome's type: a fixture may mix them (trial() casts). */
export type TrialFields = { [K in keyof TrialRecord]?: TrialRecord[K] };

export function trial(over: TrialFields = {}): TrialRecord {
  const status = over.status ?? 'scored';
  const label = over.label !== undefined ? over.label : status === 'scored' ? 'pass' : null;
  return {
    run_id: 'r',
    trial_key: Math.random().toString(36),
    task_id: 't1',
    agent: 'nanocoder',
    provider: 'p',
    model: 'm',
    mode: 'hinted',
    attempt: 1,
    status,
    score: status === 'scored' ? (label === 'pass' ? 1 : 0) : null,
    label,
    confidence_level: null,
    tests_passed: 0,
    tests_failed: 0,
    tests_total: 0,
    files_changed: [],
    flags: [],
    exit_kind: 'success',
    timed_out: false,
    error: status === 'error' ? 'provision: clone failed' : null,
    error_stage: null,
    error_code: null,
    details: {},
    started_at: '2026-01-01T00:00:00Z',
    finished_at: '2026-01-01T00:00:01Z',
    duration_ms: 1000,
    artifacts_dir: null,
    ...over,
  } as TrialRecord;
}

/** n trials of one cell: the first `passed` pass, the rest get `fail` as their label. */
export function cell(
  passed: number,
  n: number,
  over: TrialFields = {},
  fail: Label = 'incorrect_fix',
): TrialRecord[] {
  return Array.from({ length: n }, (_, i) =>
    trial({
      attempt: i + 1,
      label: i < passed ? 'pass' : fail,
      score: i < passed ? 1 : 0,
      ...over,
    }),
  );
}

export function run(config: Record<string, unknown> = {}, id = 'r'): RunRecord {
  return {
    id,
    created_at: '2026-01-01T00:00:00Z',
    finished_at: '2026-01-01T01:00:00Z',
    status: 'finished',
    config: { agent: 'nanocoder', datasets: [], ...config },
    plan_size: 0,
  };
}
