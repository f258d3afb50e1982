// The paired verdicts of one family of groups (the groups of a comparison, the harness deltas of a
// run): each group's paired difference, and Holm's correction over the groups that can be tested.
// Which groups are tested is fixed by the design (enough shared tasks), before any outcome is
// looked at, and each tested group's detectable change is stated at the strictest Holm step.
import { type FamilyVerdict, familyVerdicts } from './holm.js';
import { MIN_PAIRED_TASKS, type PairedDifference, pairedDifference, pairTasks } from './paired.js';
import type { TaskResult } from './tasks.js';

/** Family-wise false-alarm level over the groups of one family. */
export const FAMILY_ALPHA = 0.05;

export interface PairedVerdict extends PairedDifference {
  /** Holm-adjusted p-value over the groups tested; null when the group was not tested. */
  p_holm: number | null;
  /**
   * null: fewer than MIN_PAIRED_TASKS shared tasks, too few for the paired test to ever reach
   * its level; the caller decides such a group otherwise (or not at all).
   */
  verdict: FamilyVerdict | null;
}

/** Candidate minus base for each [base, candidate] pair, in the order given. */
export function pairedFamily(
  groups: readonly (readonly [base: readonly TaskResult[], candidate: readonly TaskResult[]])[],
  familyAlpha = FAMILY_ALPHA,
): PairedVerdict[] {
  const tested = groups.map(([b, c]) => pairTasks(b, c).length >= MIN_PAIRED_TASKS);
  const alpha = familyAlpha / Math.max(1, tested.filter(Boolean).length);
  const paired = groups.map(([b, c]) => pairedDifference(b, c, { alpha }));
  const family = familyVerdicts(
    paired
      .filter((_, i) => tested[i])
      .map((p) => ({ p_value: p.test.p_value, direction: p.direction })),
    familyAlpha,
  );
  let next = 0;
  return paired.map((p, i) => {
    const v = tested[i] ? family[next++] : null;
    return { ...p, p_holm: v?.p_holm ?? null, verdict: v?.verdict ?? null };
  });
}
