// The sampling policy as a report states it (whitepaper §8.5): runs per task follow the task's
// complexity tier unless --runs overrode them for the whole run. Tier 3-4 results need at least
// five scored runs before they back a regression claim; cells below that are called undersampled.
import { runsForTier } from '../run/plan.js';

export const MIN_RUNS_TIER_3_4 = runsForTier(3);

export interface SamplingPolicy {
  kind: 'tier' | 'override';
  /** The --runs value when it overrode the tier policy. */
  runs_override: number | null;
  /** One line for humans, e.g. "by tier: tiers 1-2 one run, tiers 3-4 five runs per task". */
  summary: string;
  /** Planned runs per tier, for the tiers present in the run. */
  tiers: { tier: number; runs: number; tasks: number }[];
}

export function samplingPolicy(
  runsOverride: number | null | undefined,
  taskTiers: Iterable<number>,
): SamplingPolicy {
  const counts = new Map<number, number>();
  for (const tier of taskTiers) counts.set(tier, (counts.get(tier) ?? 0) + 1);
  const override = runsOverride ?? null;
  const tiers = [...counts]
    .sort((a, b) => a[0] - b[0])
    .map(([tier, tasks]) => ({ tier, runs: override ?? runsForTier(tier), tasks }));
  const plural = (n: number) => `${n} run${n === 1 ? '' : 's'}`;
  const summary =
    override === null
      ? `by tier: tiers 1-2 ${plural(runsForTier(1))}, tiers 3-4 ${plural(runsForTier(3))} per task and model`
      : `--runs ${override}: ${plural(override)} per task and model (overrides the tier policy)`;
  return { kind: override === null ? 'tier' : 'override', runs_override: override, summary, tiers };
}

/** A tier 3-4 cell with fewer scored runs than the policy's minimum for regression claims. */
export function undersampled(tier: number | undefined, scored: number): boolean {
  return tier !== undefined && tier >= 3 && scored < MIN_RUNS_TIER_3_4;
}
