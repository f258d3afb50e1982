// The leaderboard: over the stored runs of one dataset version and one mode, one row per
// (agent, provider, model, Nanocoder version), ordered by pass@1 counted per task (each task once:
// the statistics API's task-weighted rate). A rank is only claimed where the data separate it:
// each row is compared with every row above it, task by task over the tasks both were measured
// on (the paired sign-flip test, Holm-corrected over all those pairs); with fewer than
// MIN_PAIRED_TASKS shared tasks no paired result can reach p < 0.05, and the whitepaper's
// interval overlap over the shared tasks decides, as compare does. A row's rank is one more than
// the number of rows above it that are better beyond noise (never above the rank of the row
// above it), so a row the data cannot separate from the one above shares its rank: tied, never a
// false order. Comparing with every row above, not only the adjacent one, keeps a row measured
// on few tasks from bridging two rows that the data do separate.
import type { RecordLabel } from '../score/labels.js';
import { getOrInit, joinKey, type Rate, rateOf } from '../stats/aggregate.js';
import { pairTasks } from '../stats/paired.js';
import { type PairedVerdict, pairedFamily } from '../stats/paired-family.js';
import {
  type TaskResult,
  type TaskWeightedRate,
  taskResults,
  taskWeightedRate,
} from '../stats/tasks.js';
import { usagePer, usageTotals } from '../stats/usage.js';
import { overlaps, wilson } from '../stats/wilson.js';
import { modelName } from './format.js';
import type { ReportTrial } from './model.js';

/** Family-wise level of the adjacent-pair tests. */
export const LEADERBOARD_ALPHA = 0.05;

/** One stored run's trials in the chosen mode (the audit policy already applied). */
export interface LeaderboardEntry {
  db: string;
  run_id: string;
  agent: string;
  nanocoder_version: string | null;
  trials: ReportTrial[];
}

/** Two rows compared: a row against one ranked above it. */
export interface Separation {
  /** Index (0-based, in the leaderboard's order) of the row above. */
  above: number;
  /** Tasks both rows were measured on. */
  shared_tasks: number;
  /** paired: the sign-flip test over shared tasks; overlap: too few for it, Wilson overlap decides. */
  rule: 'paired' | 'overlap';
  /** Mean over shared tasks of (this row - the row above) pass rate; null without shared tasks. */
  difference: number | null;
  p_value: number | null;
  p_holm: number | null;
  /** The row above is better beyond noise: this row's rank is below it. */
  separated: boolean;
}

export interface LeaderboardRow {
  rank: number;
  /** Shares its rank with the row above (not separated from it). */
  tied: boolean;
  agent: string;
  provider: string;
  model: string;
  nanocoder_version: string | null;
  /** The runs the row's trials come from. */
  runs: { db: string; run_id: string }[];
  /** pass@1 (and the mean score) per task, each task once, with the intervals over tasks. */
  tasks: TaskWeightedRate;
  /** The trials pooled: k/N scored, and the infra errors beside them. */
  trials: Rate;
  errors_by_cause: { cause: string; count: number }[];
  usage: {
    /** Trials the proxy counted (LLM agents only). */
    counted_trials: number;
    tokens_per_trial: number | null;
    cost_per_trial_usd: number | null;
    /** All the row's tokens (and cost) divided by its passing trials: what one solve takes. */
    tokens_per_solved: number | null;
    cost_per_solved_usd: number | null;
    cost_usd: number | null;
  };
  /** The most frequent labels of scored trials that did not pass (at most three). */
  failure_labels: { label: RecordLabel; count: number }[];
  coverage: { tasks: number; dataset_tasks: number | null; whole: boolean | null };
  /** Against the row directly above; null for the first row. */
  versus_above: Separation | null;
  /** The rows above this one that are better beyond noise (named as in reports), setting its rank. */
  below: string[];
}

export interface Leaderboard {
  dataset: string;
  mode: string;
  /** Tasks in the dataset version, and where that number comes from. */
  dataset_tasks: number | null;
  dataset_tasks_source: 'manifest' | 'planned' | null;
  runs: { db: string; run_id: string }[];
  rows: LeaderboardRow[];
  alpha: number;
}

/**
 * A row's agent is the trial's (a run of `--agent nanocoder,bare` gives a row to each), and its
 * Nanocoder version only when that agent is Nanocoder.
 */
const agentOf = (e: LeaderboardEntry, t: ReportTrial) => t.agent ?? e.agent;
const versionOf = (e: LeaderboardEntry, t: ReportTrial) =>
  agentOf(e, t) === 'bare' ? null : e.nanocoder_version;
const rowKey = (e: LeaderboardEntry, t: ReportTrial) =>
  joinKey(agentOf(e, t), t.provider, t.model, versionOf(e, t) ?? '');

interface Group {
  agent: string;
  provider: string;
  model: string;
  nanocoder_version: string | null;
  runs: Map<string, { db: string; run_id: string }>;
  trials: ReportTrial[];
}

function groupsOf(entries: readonly LeaderboardEntry[]): Group[] {
  const by = new Map<string, Group>();
  for (const e of entries)
    for (const t of e.trials) {
      const g = getOrInit(by, rowKey(e, t), () => ({
        agent: agentOf(e, t),
        provider: t.provider,
        model: t.model,
        nanocoder_version: versionOf(e, t),
        runs: new Map(),
        trials: [],
      }));
      g.runs.set(joinKey(e.db, e.run_id), { db: e.db, run_id: e.run_id });
      g.trials.push(t);
    }
  return [...by.values()];
}

/** The usage columns: src/stats/usage.ts's figures, per solved over the row's passing trials. */
function usageColumns(trials: ReportTrial[], passed: number): LeaderboardRow['usage'] {
  const totals = usageTotals(trials);
  const u = usagePer(totals, passed);
  return {
    counted_trials: u.trials,
    tokens_per_trial: u.tokens_per_trial,
    cost_per_trial_usd: u.cost_per_trial_usd,
    tokens_per_solved: u.tokens_per_solved,
    cost_per_solved_usd: u.cost_per_solved_usd,
    cost_usd: totals.cost_usd,
  };
}

function failureLabels(trials: ReportTrial[]): LeaderboardRow['failure_labels'] {
  const counts = new Map<RecordLabel, number>();
  for (const t of trials)
    if (t.status === 'scored' && t.label !== 'pass')
      counts.set(t.label, (counts.get(t.label) ?? 0) + 1);
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 3)
    .map(([label, count]) => ({ label, count }));
}

function errorCauses(trials: ReportTrial[]): LeaderboardRow['errors_by_cause'] {
  const counts = new Map<string, number>();
  for (const t of trials)
    if (t.status === 'error') {
      const cause = t.error_stage ? `${t.error_stage}/${t.error_code ?? 'failed'}` : 'error';
      counts.set(cause, (counts.get(cause) ?? 0) + 1);
    }
  return [...counts]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([cause, count]) => ({ cause, count }));
}

/**
 * Higher pass@1 first, then higher mean score, then more tasks measured (more evidence), then by
 * name (a stable order for equal rows).
 */
function byStanding(a: LeaderboardRow, b: LeaderboardRow): number {
  const p = (a.tasks.pass_rate ?? -1) - (b.tasks.pass_rate ?? -1);
  if (Math.abs(p) > 1e-12) return -p;
  const s = (a.tasks.mean_score ?? -1) - (b.tasks.mean_score ?? -1);
  if (Math.abs(s) > 1e-12) return -s;
  if (a.tasks.tasks !== b.tasks.tasks) return b.tasks.tasks - a.tasks.tasks;
  const ka = joinKey(a.provider, a.model, a.agent, a.nanocoder_version ?? '');
  const kb = joinKey(b.provider, b.model, b.agent, b.nanocoder_version ?? '');
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** Pooled k/n over the given tasks only, for the overlap rule on shared tasks. */
function pooledOn(results: readonly TaskResult[], tasks: Set<string>) {
  const r = results.filter((x) => tasks.has(x.task_id));
  return wilson(
    r.reduce((s, x) => s + x.passed, 0),
    r.reduce((s, x) => s + x.scored, 0),
  );
}

/** One pair: the paired test where enough tasks are shared, else the overlap rule on them. */
function separation(
  above: readonly TaskResult[],
  below: readonly TaskResult[],
  i: number,
  d: PairedVerdict,
): Separation {
  const base = { above: i, shared_tasks: d.tasks, difference: d.pass_rate.estimate };
  if (d.verdict !== null)
    return {
      ...base,
      p_value: d.test.p_value,
      p_holm: d.p_holm,
      separated: d.verdict === 'regression',
      rule: 'paired',
    };
  const shared = new Set(pairTasks(above, below).map((p) => p.task_id));
  const a = pooledOn(above, shared);
  const b = pooledOn(below, shared);
  const separated = shared.size > 0 && !overlaps(a, b) && b.high < a.low;
  return { ...base, p_value: null, p_holm: null, separated, rule: 'overlap' };
}

/**
 * Every row against every row above it (out[i]: row i against rows 0..i-1). The paired tests of
 * all pairs form one Holm family (src/stats/paired-family.ts). Only "the row below is worse beyond
 * noise" separates: a "better" finding (possible when coverage differs: ordered on all its tasks,
 * compared on the shared ones) does not.
 */
export function separations(results: readonly TaskResult[][]): Separation[][] {
  const pairs: [above: number, below: number][] = [];
  for (let i = 1; i < results.length; i++) for (let j = 0; j < i; j++) pairs.push([j, i]);
  const paired = pairedFamily(
    pairs.map(([j, i]) => [results[j], results[i]] as const),
    LEADERBOARD_ALPHA,
  );
  const out: Separation[][] = results.map(() => []);
  pairs.forEach(([j, i], k) => {
    out[i].push(separation(results[j], results[i], j, paired[k]));
  });
  return out;
}

/** Ranks from the separations: 1 + rows above better beyond noise, never above the previous. */
export function ranksOf(seps: readonly Separation[][]): number[] {
  const ranks: number[] = [];
  seps.forEach((above, i) => {
    const own = 1 + above.filter((s) => s.separated).length;
    ranks.push(i === 0 ? 1 : Math.max(ranks[i - 1], own));
  });
  return ranks;
}

export function buildLeaderboard(
  entries: readonly LeaderboardEntry[],
  opts: {
    dataset: string;
    mode: string;
    datasetTasks: number | null;
    datasetTasksSource: Leaderboard['dataset_tasks_source'];
  },
): Leaderboard {
  const withResults = groupsOf(entries).map((g) => {
    const results = taskResults(g.trials);
    const trials = rateOf(g.trials);
    const tasks = taskWeightedRate(results);
    const row: LeaderboardRow = {
      rank: 0,
      tied: false,
      agent: g.agent,
      provider: g.provider,
      model: g.model,
      nanocoder_version: g.nanocoder_version,
      runs: [...g.runs.values()],
      tasks,
      trials,
      errors_by_cause: errorCauses(g.trials),
      usage: usageColumns(g.trials, trials.passed),
      failure_labels: failureLabels(g.trials),
      coverage: {
        tasks: tasks.tasks,
        dataset_tasks: opts.datasetTasks,
        whole: opts.datasetTasks === null ? null : tasks.tasks >= opts.datasetTasks,
      },
      versus_above: null,
      below: [],
    };
    return { row, results };
  });
  withResults.sort((a, b) => byStanding(a.row, b.row));
  const seps = separations(withResults.map((x) => x.results));
  const ranks = ranksOf(seps);
  const name = (r: LeaderboardRow) => modelName(r.provider, r.model, r.agent);
  const rows = withResults.map((x, i) => ({
    ...x.row,
    rank: ranks[i],
    tied: i > 0 && ranks[i] === ranks[i - 1],
    versus_above: seps[i].at(-1) ?? null,
    below: seps[i].filter((s) => s.separated).map((s) => name(withResults[s.above].row)),
  }));
  const runs = new Map(
    entries.map((e) => [joinKey(e.db, e.run_id), { db: e.db, run_id: e.run_id }]),
  );
  return {
    dataset: opts.dataset,
    mode: opts.mode,
    dataset_tasks: opts.datasetTasks,
    dataset_tasks_source: opts.datasetTasksSource,
    runs: [...runs.values()],
    rows,
    alpha: LEADERBOARD_ALPHA,
  };
}
