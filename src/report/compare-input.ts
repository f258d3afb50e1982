// One side of a comparison, read from a store: outcomes only (a light query), the tiers of its
// tasks, and the database's latest Level-4 audit (compareRuns applies the stricter of the two
// sides' audits to both). `nanobench compare` and the viewer's compare page both read runs
// through this, so they agree.
import { auditSummary, stricterAudit } from '../audit/policy.js';
import type { RunSide } from '../stats/compare.js';
import type { AuditRecord, RunRecord, Store } from '../store/store.js';
import { resolveTaskMeta } from './task-meta.js';

export function compareSide(store: Store, run: RunRecord): RunSide & { audit?: AuditRecord } {
  const meta = resolveTaskMeta(run.config);
  return {
    id: run.id,
    config: run.config,
    trials: store.trialOutcomes(run.id),
    tiers: Object.fromEntries(Object.entries(meta.tasks).map(([t, m]) => [t, m.tier])),
    audit: store.latestAudit(),
  };
}

/** Both sides of a comparison, read alike: the stricter audit of the two databases applies. */
export function comparedAudit(base: { audit?: AuditRecord }, candidate: { audit?: AuditRecord }) {
  return auditSummary(stricterAudit(base.audit, candidate.audit));
}
