// One side of a comparison, read from a store: outcomes only (a light query), labelled as that
// database's reports show them (its latest audit), with the tiers of its tasks. `nanobench
// compare` and the viewer's compare page both read runs through this, so they agree.
import { applyAudit } from '../audit/policy.js';
import type { RunSide } from '../stats/compare.js';
import type { RunRecord, Store } from '../store/store.js';
import { resolveTaskMeta } from './task-meta.js';

export function compareSide(store: Store, run: RunRecord): RunSide {
  const meta = resolveTaskMeta(run.config);
  return {
    id: run.id,
    config: run.config,
    trials: applyAudit(store.trialOutcomes(run.id), store.latestAudit()?.agreement),
    tiers: Object.fromEntries(Object.entries(meta.tasks).map(([t, m]) => [t, m.tier])),
  };
}
