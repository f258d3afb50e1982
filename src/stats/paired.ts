// The paired comparison of two sets of per-task results (base and candidate, on the same
// tasks): each task is compared with itself, so its difficulty cancels. Per task, the difference
// of its pass rate (and of its mean score) between candidate and base over its runs; the
// estimate is the mean difference over tasks (each task once) with a t interval over tasks.
// The test is the sign-flip test over tasks, on each task's difference weighed by the runs behind
// it (w = r_base r_cand / (r_base + r_cand), the inverse of its sampling variance up to p(1-p)):
// a five-run difference is measured more precisely than a one-run one. The weights depend only on
// the design, never on outcomes, so the test stays exact under "no change".
//
// Library API: compare uses it per provider/model/mode; the cross-run leaderboard and the
// harness delta call it with any two sets of per-task results.
import { studentTQuantile } from './distributions.js';
import { type SignFlipResult, signFlipTest } from './signflip.js';
import type { TaskResult } from './tasks.js';
import type { Interval } from './wilson.js';

/** Power the smallest detectable change is stated at. */
export const POWER = 0.8;

/**
 * Tasks that must all move the same way before the sign-flip test can reach alpha: with k
 * tasks changed and the rest unchanged, the smallest two-sided p-value is 2 / 2^k.
 */
export function flipsNeeded(alpha: number): number {
  return Math.max(1, Math.ceil(1 + Math.log2(1 / alpha) - 1e-12));
}

/** Below this many shared tasks no paired result can reach p < 0.05 (2 / 2^5 = 0.0625). */
export const MIN_PAIRED_TASKS = flipsNeeded(0.05);

export interface TaskPair {
  task_id: string;
  base: TaskResult;
  candidate: TaskResult;
}

export interface Estimate {
  /** Mean over tasks of candidate - base; null without a pair. */
  estimate: number | null;
  ci95: Interval;
}

export interface PairedDifference {
  /** Tasks scored on both sides. */
  tasks: number;
  pass_rate: Estimate;
  mean_score: Estimate;
  /** The sign-flip test on the run-weighted pass-rate differences. */
  test: SignFlipResult;
  /** The sign of the test statistic. */
  direction: 'worse' | 'better' | 'none';
  /** Tasks whose pass rate fell, rose, or stayed. */
  tasks_changed: { worse: number; better: number; same: number };
  /**
   * The smallest change this comparison detects with 80% power at `alpha` (a share, 0.14 =
   * 14 pp), from its task count, runs and observed spread; null when no change could reach alpha
   * with this few tasks.
   */
  detectable: number | null;
  /** The level the detectable change is stated at. */
  alpha: number;
}

/** The tasks both sides scored, in the base's order. */
export function pairTasks(
  base: readonly TaskResult[],
  candidate: readonly TaskResult[],
): TaskPair[] {
  const cand = new Map(candidate.filter((r) => r.scored > 0).map((r) => [r.task_id, r]));
  return base.flatMap((b) => {
    const c = cand.get(b.task_id);
    return b.scored > 0 && c ? [{ task_id: b.task_id, base: b, candidate: c }] : [];
  });
}

/** Mean with a t interval over tasks, clamped to [-1, 1]; with one task only the estimate. */
function meanInterval(xs: readonly number[]): Estimate {
  const n = xs.length;
  if (!n) return { estimate: null, ci95: { low: -1, high: 1 } };
  const m = xs.reduce((s, x) => s + x, 0) / n;
  if (n < 2) return { estimate: m, ci95: { low: -1, high: 1 } };
  const sd = Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (n - 1));
  const half = (studentTQuantile(0.975, n - 1) * sd) / Math.sqrt(n);
  return { estimate: m, ci95: { low: Math.max(-1, m - half), high: Math.min(1, m + half) } };
}

const rate = (r: TaskResult) => r.passed / r.scored;
const weightOf = (p: TaskPair) =>
  (p.base.scored * p.candidate.scored) / (p.base.scored + p.candidate.scored);

/**
 * The smallest change detectable with POWER at `alpha`: the large-sample approximation to the
 * weighted sign-flip test, (t(1 - alpha/2) + t(power)) * sqrt(sum w^2 s^2) / sum w, with s^2 the
 * observed spread of the task differences around their weighted mean. Never below the exact
 * floor: flipsNeeded(alpha) tasks must move the same way, each by at least one run (1/runs), so
 * a comparison without any spread (deterministic agents) still states what it needs.
 */
function detectableChange(pairs: readonly TaskPair[], alpha: number): number | null {
  const n = pairs.length;
  const flips = flipsNeeded(alpha);
  if (n < flips) return null;
  const steps = pairs
    .map((p) => 1 / Math.max(p.base.scored, p.candidate.scored))
    .sort((a, b) => a - b)
    .slice(0, flips);
  const floor = steps.reduce((s, x) => s + x, 0) / n;
  const w = pairs.map(weightOf);
  const d = pairs.map((p) => rate(p.candidate) - rate(p.base));
  const wSum = w.reduce((s, x) => s + x, 0);
  const centre = d.reduce((s, x, i) => s + w[i] * x, 0) / wSum;
  const spread = d.reduce((s, x, i) => s + w[i] ** 2 * (x - centre) ** 2, 0) * (n / (n - 1));
  // Student t quantiles with n - 1 degrees of freedom: the paired t test's power approximation,
  // less optimistic than the normal's for a few dozen tasks (bench:power checks it).
  const z = studentTQuantile(1 - alpha / 2, n - 1) + studentTQuantile(POWER, n - 1);
  return Math.min(1, Math.max(floor, (z * Math.sqrt(spread)) / wSum));
}

/**
 * Candidate minus base over the tasks both scored. `alpha` is the level the detectable change is
 * stated at: in a family of G groups, alpha / G (the strictest step of Holm's procedure).
 */
export function pairedDifference(
  base: readonly TaskResult[],
  candidate: readonly TaskResult[],
  opts: { alpha?: number } = {},
): PairedDifference {
  const alpha = opts.alpha ?? 0.05;
  const pairs = pairTasks(base, candidate);
  const d = pairs.map((p) => rate(p.candidate) - rate(p.base));
  const scores = pairs.map(
    (p) => p.candidate.score_sum / p.candidate.scored - p.base.score_sum / p.base.scored,
  );
  // w * d = (k_c r_b - k_b r_c) / (r_b + r_c): on a lattice, so the test is exact.
  const weighted = pairs.map(
    (p) =>
      (p.candidate.passed * p.base.scored - p.base.passed * p.candidate.scored) /
      (p.base.scored + p.candidate.scored),
  );
  const test = signFlipTest(weighted);
  return {
    tasks: pairs.length,
    pass_rate: meanInterval(d),
    mean_score: meanInterval(scores),
    test,
    direction: test.statistic < -1e-9 ? 'worse' : test.statistic > 1e-9 ? 'better' : 'none',
    tasks_changed: {
      worse: d.filter((x) => x < 0).length,
      better: d.filter((x) => x > 0).length,
      same: d.filter((x) => x === 0).length,
    },
    detectable: detectableChange(pairs, alpha),
    alpha,
  };
}
