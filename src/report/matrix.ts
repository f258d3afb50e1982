// The provider matrix (whitepaper §8): provider -> model -> task -> score -> failure mode.
// One cell per (provider, model, task, mode) with pass@1, mean over N runs, the raw count and
// a 95% Wilson interval on the pass rate. Infra errors sit beside the rates, never inside.
import { type Cutoffs, cutoffFor, mergedBeforeCutoff } from '../config/cutoffs.js';
import {
  getOrInit,
  joinKey,
  naturalCompare,
  type Rate,
  Tally,
  type TrialOutcome,
} from '../stats/aggregate.js';
import type { EvidenceStatus } from '../task/evidence.js';

export { naturalCompare } from '../stats/aggregate.js';

import { undersampled } from '../stats/sampling.js';
import type { TaskMetaMap } from './task-meta.js';

export interface MatrixCell {
  /** The agent, when the trials name it (a run of several agents has a cell per agent). */
  agent?: string;
  provider: string;
  model: string;
  task_id: string;
  mode: string;
  runs: number;
  /** Did attempt 1 pass? null when attempt 1 was an infra error or is missing. */
  pass_at_1: boolean | null;
  passed: number;
  scored: number;
  errors: number;
  mean_score: number | null;
  ci95: Rate['ci95'];
  /** Label -> count, most frequent first. */
  labels: Record<string, number>;
  non_deterministic: boolean;
  tier: number | null;
  /** Tier 3-4 with fewer than five scored runs: too few to back a regression claim. */
  undersampled: boolean;
  /**
   * pre_cutoff: the task was merged before the model's knowledge cutoff (possibly seen in
   * training); unknown: no cutoff listed for the model, or no task metadata.
   */
  contamination: 'pre_cutoff' | 'post_cutoff' | 'unknown';
  /** Gate evidence of the task when the run started; unknown for runs that predate it. */
  evidence: EvidenceStatus | 'unknown';
}

export interface MatrixOptions {
  tasks?: TaskMetaMap;
  cutoffs?: Cutoffs | null;
}

const cellKey = (t: Pick<TrialOutcome, 'agent' | 'provider' | 'model' | 'task_id' | 'mode'>) =>
  joinKey(t.provider, t.model, t.task_id, t.mode, t.agent ?? '');

function contamination(
  c: Pick<MatrixCell, 'provider' | 'model' | 'task_id'>,
  o: MatrixOptions,
): MatrixCell['contamination'] {
  const merged = o.tasks?.[c.task_id]?.merged_at;
  const entry = o.cutoffs ? cutoffFor(o.cutoffs, c.provider, c.model) : undefined;
  if (!merged || !entry) return 'unknown';
  return mergedBeforeCutoff(merged, entry.cutoff) ? 'pre_cutoff' : 'post_cutoff';
}

export function providerMatrix(
  trials: Iterable<TrialOutcome>,
  o: MatrixOptions = {},
): MatrixCell[] {
  type Group = { first: TrialOutcome; tally: Tally; a1?: TrialOutcome };
  const groups = new Map<string, Group>();
  for (const t of trials) {
    const k = cellKey(t);
    const g = getOrInit(groups, k, (): Group => ({ first: t, tally: new Tally() }));
    g.tally.add(t);
    if (t.attempt === 1) g.a1 = t;
  }
  const cells = [...groups.values()].map(({ first, tally, a1 }): MatrixCell => {
    const r = tally.rate();
    const tier = o.tasks?.[first.task_id]?.tier ?? null;
    const cell = {
      ...(first.agent !== undefined && { agent: first.agent }),
      provider: first.provider,
      model: first.model,
      task_id: first.task_id,
      mode: first.mode,
      runs: r.trials,
      pass_at_1: a1 && a1.status === 'scored' ? a1.label === 'pass' : null,
      passed: r.passed,
      scored: r.scored,
      errors: r.errors,
      mean_score: r.mean_score,
      ci95: r.ci95,
      labels: tally.labelCounts(),
      non_deterministic: r.non_deterministic,
      tier,
      undersampled: undersampled(tier ?? undefined, r.scored),
    };
    return {
      ...cell,
      contamination: contamination(cell, o),
      evidence: o.tasks?.[first.task_id]?.evidence ?? 'unknown',
    };
  });
  // By provider, model, task in natural order (task-2 before task-10), then mode.
  return cells.sort(
    (a, b) =>
      compareKeys(a.provider, b.provider) ||
      compareKeys(a.model, b.model) ||
      naturalCompare(a.task_id, b.task_id) ||
      compareKeys(a.mode, b.mode) ||
      compareKeys(a.agent ?? '', b.agent ?? ''),
  );
}

/** Plain code-unit order: deterministic and much faster than localeCompare on big matrices. */
export const compareKeys = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
