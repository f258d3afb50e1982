// Rates that count tasks, not trials. A tier 3-4 task runs five times and a tier 1-2 task once;
// pooling trials would weigh the first five times the second, and would treat a task's five runs
// as five independent draws when they share the task's difficulty. Here each task is reduced to
// its pass rate and mean score over its scored runs first; a rate over tasks is the mean of those,
// and its interval is cluster-robust: the spread between task means (runs clustered within a
// task), as a standard error with n - 1 degrees of freedom, turned into an effective sample size
// for a Wilson interval, so it stays inside [0, 1] and honest near 0 and 1. `npm run
// bench:power` measures its coverage by simulation (docs/ARCHITECTURE.md, "Statistics").
//
// These are library functions: compare, reports, and the cross-run leaderboard and harness
// delta build on them with any set of per-task results.
import { getOrInit, naturalCompare, type TrialOutcome } from './aggregate.js';
import { studentTQuantile } from './distributions.js';
import { type Interval, wilson, wilsonAt } from './wilson.js';

/** One task's scored runs, reduced: the unit of every rate over tasks. */
export interface TaskResult {
  task_id: string;
  /** Scored runs (infra errors never count). */
  scored: number;
  /** Runs labelled pass. */
  passed: number;
  /** Sum of the scored runs' scores (partial and pathfinding credit included). */
  score_sum: number;
}

export interface TaskWeightedRate {
  /** Tasks with at least one scored run: the sample size. */
  tasks: number;
  /** Scored runs behind them. */
  scored: number;
  /** Mean over tasks of each task's pass rate; null when no task was scored. */
  pass_rate: number | null;
  ci95: Interval;
  /** Half the interval's width: how finely this rate is known. */
  half_width: number | null;
  /** Mean over tasks of each task's mean score. */
  mean_score: number | null;
  mean_score_ci95: Interval;
  /**
   * cluster: the interval over tasks; one task: that task's runs are independent draws (its
   * Wilson interval); none: nothing scored.
   */
  method: 'cluster' | 'one task' | 'none';
}

/** Per-task results of a set of trials (one group: provider, model, mode), in natural order. */
export function taskResults(trials: Iterable<TrialOutcome>): TaskResult[] {
  const by = new Map<string, TaskResult>();
  for (const t of trials) {
    const r = getOrInit(by, t.task_id, () => ({
      task_id: t.task_id,
      scored: 0,
      passed: 0,
      score_sum: 0,
    }));
    if (t.status !== 'scored') continue;
    r.scored++;
    r.score_sum += t.score;
    if (t.label === 'pass') r.passed++;
  }
  return [...by.values()].sort((a, b) => naturalCompare(a.task_id, b.task_id));
}

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/**
 * A 95% interval for the mean of per-task values in [0, 1], clustered by task: the standard
 * error over tasks sets an effective sample size (p(1 - p) / se^2, which is at least n - 1 and
 * at most the scored runs), and the Wilson interval at that size uses Student's t quantile with
 * n - 1 degrees of freedom.
 */
export function clusterInterval(values: readonly number[], runs: number): Interval {
  const n = values.length;
  if (n < 2) throw new RangeError('clusterInterval: needs at least two tasks');
  const m = mean(values);
  // No spread to estimate: every task at 0 (or at 1) reads as n draws, the Wilson interval of
  // 0/n (or n/n) over tasks.
  if (m <= 0 || m >= 1) return wilsonAt(m <= 0 ? 0 : 1, n);
  const se2 = values.reduce((s, x) => s + (x - m) ** 2, 0) / (n * (n - 1));
  const effective = se2 === 0 ? runs : Math.min(runs, (m * (1 - m)) / se2);
  return wilsonAt(m, effective, studentTQuantile(0.975, n - 1));
}

/** Each task once: the headline rate of a model (or of any set of per-task results). */
export function taskWeightedRate(results: readonly TaskResult[]): TaskWeightedRate {
  const tasks = results.filter((r) => r.scored > 0);
  const scored = tasks.reduce((s, r) => s + r.scored, 0);
  if (!tasks.length)
    return {
      tasks: 0,
      scored: 0,
      pass_rate: null,
      ci95: { low: 0, high: 1 },
      half_width: null,
      mean_score: null,
      mean_score_ci95: { low: 0, high: 1 },
      method: 'none',
    };
  const rates = tasks.map((r) => r.passed / r.scored);
  const scores = tasks.map((r) => r.score_sum / r.scored);
  const one = tasks.length === 1;
  const ci95 = one ? wilson(tasks[0].passed, tasks[0].scored) : clusterInterval(rates, scored);
  return {
    tasks: tasks.length,
    scored,
    pass_rate: mean(rates),
    ci95,
    half_width: (ci95.high - ci95.low) / 2,
    mean_score: mean(scores),
    mean_score_ci95: one ? wilsonAt(scores[0], tasks[0].scored) : clusterInterval(scores, scored),
    method: one ? 'one task' : 'cluster',
  };
}
