// Where a run's time went: the mean and median of each trial phase (details.phase_ms, timed by
// the trial template) and how the workspaces were made (details.provision). Trials stored before
// phases were timed are left out, and the summary says how many it covers.
import type { TrialDetails } from '../trial/details.js';
import { TIMED_PHASES } from '../trial/stages.js';

const ORDER: readonly string[] = TIMED_PHASES;

/** What this reads of a trial: the columns Store.trialOutcomes flattens, or a full record's details. */
interface TimedTrial {
  phase_ms?: Record<string, number> | null;
  provision_mode?: string | null;
  details?: TrialDetails;
}

export interface PhaseSummary {
  /** Trials with timed phases. */
  trials: number;
  phases: { phase: string; mean_ms: number; median_ms: number; share: number }[];
  /** Sum of the phases' means: a typical trial, as far as it was timed. */
  mean_total_ms: number;
  /** Trials per provisioning mode (overlay, fuse-overlayfs, reflink, copy). */
  provision: Record<string, number>;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export function phaseSummary(trials: TimedTrial[]): PhaseSummary | null {
  const timed = trials
    .map((t) => {
      const d = t.details ?? {};
      const ms: Partial<Record<string, number>> | null | undefined = t.phase_ms ?? d.phase_ms;
      return { ms, mode: t.provision_mode ?? d.provision?.mode };
    })
    .filter((t) => t.ms && typeof t.ms === 'object');
  if (timed.length === 0) return null;
  const names = new Set(timed.flatMap((t) => Object.keys(t.ms!)));
  const phases = [
    ...ORDER.filter((p) => names.has(p)),
    ...[...names].filter((p) => !ORDER.includes(p)),
  ].map((phase) => {
    const xs = timed.map((t) => t.ms![phase] ?? 0);
    return { phase, mean_ms: xs.reduce((a, b) => a + b, 0) / xs.length, median_ms: median(xs) };
  });
  const total = phases.reduce((a, p) => a + p.mean_ms, 0);
  const provision: Record<string, number> = {};
  for (const t of timed) if (t.mode) provision[t.mode] = (provision[t.mode] ?? 0) + 1;
  return {
    trials: timed.length,
    phases: phases.map((p) => ({
      phase: p.phase,
      mean_ms: Math.round(p.mean_ms),
      median_ms: Math.round(p.median_ms),
      share: total ? p.mean_ms / total : 0,
    })),
    mean_total_ms: Math.round(total),
    provision,
  };
}

/** One line naming the provisioning modes, e.g. "overlay ×40". */
export const provisionText = (s: PhaseSummary) =>
  Object.entries(s.provision)
    .map(([mode, n]) => `${mode} ×${n}`)
    .join(', ') || 'not recorded';
