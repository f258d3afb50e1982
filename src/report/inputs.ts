// What a report needs besides the trials: task metadata and the knowledge-cutoff list.
import type { AuditSummary } from '../audit/policy.js';
import { type Cutoffs, loadCutoffs } from '../config/cutoffs.js';
import type { RunRecord } from '../store/store.js';
import type { ReportInputs } from './model.js';
import { resolveTaskMeta } from './task-meta.js';

/**
 * The run's task metadata, and the cutoffs from `cutoffsFile` (an error if given and unreadable)
 * or else from the default list shipped in examples/ (skipped if it is missing); the audit the
 * labels follow, when the caller has one.
 */
export function defaultReportInputs(
  run: RunRecord,
  cutoffsFile?: string,
  audit?: AuditSummary | null,
): ReportInputs {
  let cutoffs: Cutoffs | null = null;
  if (cutoffsFile) cutoffs = loadCutoffs(cutoffsFile);
  else {
    try {
      cutoffs = loadCutoffs();
    } catch {
      cutoffs = null;
    }
  }
  return { tasks: resolveTaskMeta(run.config), cutoffs, audit: audit ?? null };
}
