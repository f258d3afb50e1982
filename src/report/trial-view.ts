// The public JSON shape of a trial (--json output). Stable field names; see schemas/results.schema.json.
import type { RunRecord, TrialRecord } from '../store/store.js';

export function trialView(t: TrialRecord) {
  return {
    task_id: t.task_id,
    agent: t.agent,
    provider: t.provider,
    model: t.model,
    mode: t.mode,
    attempt: t.attempt,
    status: t.status,
    score: t.score,
    label: t.label,
    confidence_level: t.confidence_level,
    tests: { passed: t.tests_passed, failed: t.tests_failed, total: t.tests_total },
    files_changed: t.files_changed,
    flags: t.flags,
    exit_kind: t.exit_kind,
    timed_out: t.timed_out,
    error: t.error,
    duration_ms: t.duration_ms,
    explanation: (t.details.explanation as string | undefined) ?? null,
    artifacts_dir: t.artifacts_dir,
  };
}

export function runView(run: RunRecord, trials: TrialRecord[]) {
  const scored = trials.filter((t) => t.status === 'scored');
  return {
    run_id: run.id,
    status: run.status,
    created_at: run.created_at,
    finished_at: run.finished_at,
    plan_size: run.plan_size,
    summary: {
      trials: trials.length,
      scored: scored.length,
      errors: trials.length - scored.length,
      passed: scored.filter((t) => t.label === 'pass').length,
      mean_score: scored.length
        ? scored.reduce((a, t) => a + (t.score ?? 0), 0) / scored.length
        : null,
    },
    trials: trials.map(trialView),
  };
}
