// Comparing two runs (BASE -> CANDIDATE), per provider/model/mode: the paired verdict (each task
// compared with itself: a sign-flip test over the shared tasks, Holm-corrected over the groups of
// the comparison) beside the whitepaper's interval-overlap verdict (the 95% Wilson intervals of
// the pooled trials do not overlap), plus label shifts. `rule` picks which verdict counts;
// groups with too few shared tasks to pair fall back to the overlap rule. Modes and models are
// never pooled into a verdict, nor are agents when a run ran several (groups are then per agent,
// matched by name). Only cells (provider, model, task, mode) present in both runs are
// compared, so a changed task set can never pass for a change in the agent; tier 3-4 cells with
// fewer than five scored runs on a side are left out of the verdicts (whitepaper §8.5: such scores
// need five runs before a regression claim). What was left out, and runs scored by different
// rules, are reported as warnings.
import { type AuditSummary, applyAudit } from '../audit/policy.js';
import { type DatasetVersion, readRunConfig, type StoredRunConfig } from '../run/stored-config.js';
import type { RecordLabel } from '../score/labels.js';
import {
  getOrInit,
  joinKey,
  naturalCompare,
  type Rate,
  severalAgents,
  splitKey,
  Tally,
  type TrialOutcome,
  withAgent,
} from './aggregate.js';
import { FAMILY_ALPHA, type PairedVerdict, pairedFamily } from './paired-family.js';
import { MIN_RUNS_TIER_3_4, undersampled } from './sampling.js';
import { type TaskWeightedRate, taskResults, taskWeightedRate } from './tasks.js';
import { type UsageComparison, type UsageTrial, usageComparison } from './usage.js';
import { overlaps, type Verdict, verdict, wilson } from './wilson.js';

/** Which verdict decides: the paired test (default) or the whitepaper's interval overlap. */
export type Rule = 'paired' | 'overlap';
export const RULES: readonly Rule[] = ['paired', 'overlap'];

export interface LabelShift {
  label: RecordLabel;
  base: { count: number; share: number | null };
  candidate: { count: number; share: number | null };
  /** The Wilson intervals of the two shares do not overlap. */
  distinguishable: boolean;
}

export interface GroupComparison {
  /**
   * The agent, when a run ran several (`--agent nanocoder,bare`): groups are then per agent,
   * agents matched by name, so two agents' trials are never pooled into one verdict.
   */
  agent?: string;
  provider: string;
  model: string;
  mode: string;
  /** Trials pooled: the whitepaper's k/n with its Wilson interval, what the overlap rule reads. */
  base: Rate;
  candidate: Rate;
  /** Each task once, with the interval over tasks: the headline rates. */
  base_tasks: TaskWeightedRate;
  candidate_tasks: TaskWeightedRate;
  overlap: {
    verdict: Verdict;
    /** About the change the overlap rule needs: the sum of the two intervals' half-widths. */
    gap: number;
  };
  paired: PairedVerdict;
  /** The verdict that counts: the rule's, or overlap's when the group could not be paired. */
  verdict: Verdict;
  verdict_rule: Rule;
  non_deterministic: boolean;
  label_shifts: LabelShift[];
  /** Tokens and cost per trial and per solved trial, base and candidate, with the deltas. */
  usage: UsageComparison;
}

export interface RunSide {
  id: string;
  config: Record<string, unknown>;
  /** With the proxy's counts where stored (Store.trialOutcomes flattens them). */
  trials: (TrialOutcome & UsageTrial)[];
  /** Task id -> complexity tier, when known (for the undersampling warning). */
  tiers?: Record<string, number>;
}

export interface Comparison {
  base: { id: string; agent: string };
  candidate: { id: string; agent: string };
  /** The rule that decides verdicts, regressions and improvements. */
  rule: Rule;
  groups: GroupComparison[];
  /** Family-wise control of the paired verdicts (Holm over the groups tested). */
  family: {
    alpha: number;
    /** Groups with enough shared tasks for the paired test: the family Holm corrects over. */
    tested: number;
    /** The level each group's detectable change is stated at: alpha / tested. */
    per_group_alpha: number;
    /** Groups that could not be paired ("p/m mode"): the overlap rule decides them. */
    unpaired: string[];
  };
  /** Label shifts over every compared trial (all groups together; descriptive, not a verdict). */
  label_shifts: LabelShift[];
  label_scored: { base: number; candidate: number };
  /** Groups (provider/model/mode) present in one run only: not compared. */
  only_in_base: string[];
  only_in_candidate: string[];
  tasks: { shared: number; only_in_base: string[]; only_in_candidate: string[] };
  /** Shared tier 3-4 cells with too few scored runs on a side: in no verdict ("task p/m mode"). */
  excluded_undersampled: string[];
  /** What each run recorded; null for runs recorded before versions were. */
  versions: {
    nanobench: { base: string | null; candidate: string | null };
    scoring_rules: { base: number | null; candidate: number | null };
  };
  /** The Level-4 audit both sides' labels follow (the stricter of the two databases'). */
  audit: AuditSummary | null;
  warnings: string[];
  /** Groups whose verdict (by the rule) is regression / improvement. */
  regressions: number;
  improvements: number;
}

function labelShifts(b: Tally, c: Tally): LabelShift[] {
  const labels = new Set([...b.labels.keys(), ...c.labels.keys()]);
  const side = (t: Tally, l: RecordLabel) => {
    const count = t.labels.get(l) ?? 0;
    return { count, share: t.scored ? count / t.scored : null, ci: wilson(count, t.scored) };
  };
  return [...labels]
    .map((label) => {
      const x = side(b, label);
      const y = side(c, label);
      return {
        label,
        base: { count: x.count, share: x.share },
        candidate: { count: y.count, share: y.share },
        distinguishable: !overlaps(x.ci, y.ci),
      };
    })
    .sort(
      (p, q) =>
        Math.abs((q.candidate.share ?? 0) - (q.base.share ?? 0)) -
          Math.abs((p.candidate.share ?? 0) - (p.base.share ?? 0)) || (p.label < q.label ? -1 : 1),
    );
}

interface GroupTrials {
  b: Tally;
  c: Tally;
  bTrials: (TrialOutcome & UsageTrial)[];
  cTrials: (TrialOutcome & UsageTrial)[];
}

/** One group's figures before the family is known: rates, overlap verdict, task results. */
function groupFigures(key: string, g: GroupTrials) {
  const [agent, provider, model, mode] = splitKey(key);
  const base = g.b.rate();
  const candidate = g.c.rate();
  const bTasks = taskResults(g.bTrials);
  const cTasks = taskResults(g.cTrials);
  const half = (r: Rate) => (r.ci95.high - r.ci95.low) / 2;
  return {
    ...(agent !== '' && { agent }),
    provider,
    model,
    mode,
    base,
    candidate,
    bTasks,
    cTasks,
    base_tasks: taskWeightedRate(bTasks),
    candidate_tasks: taskWeightedRate(cTasks),
    overlap: { verdict: verdict(base.ci95, candidate.ci95), gap: half(base) + half(candidate) },
    non_deterministic: base.non_deterministic || candidate.non_deterministic,
    label_shifts: labelShifts(g.b, g.c),
    usage: usageComparison(g.bTrials, g.cTrials),
  };
}

/**
 * The paired verdicts of a comparison's groups (src/stats/paired-family.ts); a group with too
 * few shared tasks for the paired test falls back to the overlap rule.
 */
function groupVerdicts(figures: ReturnType<typeof groupFigures>[], rule: Rule): GroupComparison[] {
  const paired = pairedFamily(figures.map((f) => [f.bTasks, f.cTasks] as const));
  return figures.map(({ bTasks, cTasks, ...f }, i) => {
    const v = paired[i].verdict;
    const byOverlap = rule === 'overlap' || v === null;
    return {
      ...f,
      paired: paired[i],
      verdict: byOverlap ? f.overlap.verdict : v,
      verdict_rule: byOverlap ? 'overlap' : 'paired',
    };
  });
}

/**
 * A trial's cell: (agent, provider, model, mode, task), the agent '' unless a run ran several
 * (then agents are matched by name; else a run of one agent compares with one of another).
 */
const cellOf = (byAgent: boolean) => (t: TrialOutcome) =>
  joinKey(byAgent ? (t.agent ?? '') : '', t.provider, t.model, t.mode, t.task_id);
/** A cell key without its task: the group (agent, provider, model, mode). */
const groupOfCell = (cell: string) => cell.slice(0, cell.lastIndexOf('\u0000'));
/** "p/m mode", or "agent · p/m mode" in a comparison per agent. */
export const groupName = (g: Pick<GroupComparison, 'agent' | 'provider' | 'model' | 'mode'>) =>
  withAgent(g.agent, `${g.provider}/${g.model} ${g.mode}`);
const show = (k: string) => {
  const [agent, provider, model, mode] = splitKey(k);
  return groupName({ agent, provider, model, mode });
};

function str(x: unknown): string | undefined {
  return typeof x === 'string' || typeof x === 'number' ? String(x) : undefined;
}

const rulesOf = (c: StoredRunConfig) => c.scoring_rules_version ?? null;
const nanobenchOf = (c: StoredRunConfig) => c.nanobench_version ?? null;

type RecordedVersion = Pick<DatasetVersion, 'name' | 'version'>;

const versionsOf = (c: StoredRunConfig) => c.dataset_versions;
const showVersions = (v: RecordedVersion[]) =>
  v.map((d) => `${d.name} ${d.version ?? '(no manifest)'}`).join(' + ') || '(none)';

/**
 * The runs ran different versions of their datasets (as their manifests said when they started):
 * a sentence saying which, else undefined. Runs that predate version records cannot tell.
 */
export function datasetVersionDifference(base: RunSide, cand: RunSide): string | undefined {
  const b = versionsOf(readRunConfig(base));
  const c = versionsOf(readRunConfig(cand));
  if (!b || !c) return undefined;
  const key = (v: RecordedVersion[]) =>
    v
      .map((d) => `${d.name}@${d.version}`)
      .sort()
      .join('\n');
  if (key(b) === key(c)) return undefined;
  return `the runs are over different dataset versions: base ${showVersions(b)}, candidate ${showVersions(c)}`;
}

/** Warnings about what differs between the two runs besides the outcomes. */
export function runDifferences(base: RunSide, cand: RunSide): string[] {
  const w: string[] = [];
  const [bc, cc] = [readRunConfig(base), readRunConfig(cand)];
  // Labels (and so label shifts) depend on the rules that scored them: say so first.
  const [rb, rc] = [rulesOf(bc), rulesOf(cc)];
  const rules = (v: number | null) => (v === null ? 'not recorded (1 or older)' : String(v));
  if (rb !== rc)
    w.push(
      `scored by different rules: base scoring rules ${rules(rb)}, candidate ${rules(rc)}; a label shift may come from the rules, not the agent (see docs/ARCHITECTURE.md, scoring rules versions)`,
    );
  const [nb, nc] = [nanobenchOf(bc), nanobenchOf(cc)];
  if (nb !== nc)
    w.push(
      `NanoBench differs: base ${nb ?? '(not recorded)'}, candidate ${nc ?? '(not recorded)'}`,
    );
  const versions = datasetVersionDifference(base, cand);
  if (versions)
    w.push(`${versions}; compared on the tasks they share (with their content differences listed)`);
  else if (!versionsOf(bc) !== !versionsOf(cc))
    w.push(
      `the ${versionsOf(bc) ? 'candidate' : 'base'} run predates dataset version records: whether both ran the same dataset version is unknown`,
    );
  const [bi, ci] = [bc.agent_info, cc.agent_info];
  const build = (i: Record<string, unknown>) =>
    ['nanocoder_version', 'nanocoder_commit', 'nanocoder_path']
      .map((k) => str(i[k]))
      .filter(Boolean)
      .join(', ');
  const differs = ['nanocoder_version', 'nanocoder_commit', 'nanocoder_path'].some(
    (k) => str(bi[k]) !== str(ci[k]),
  );
  if (differs)
    w.push(
      `Nanocoder differs: base ${build(bi) || '(not recorded)'}; candidate ${build(ci) || '(not recorded)'}`,
    );
  if (bc.agent !== cc.agent) w.push(`agents differ: base ${bc.agent}, candidate ${cc.agent}`);
  const runs = (c: StoredRunConfig) => (c.runs !== undefined ? `--runs ${c.runs}` : 'runs by tier');
  if (runs(bc) !== runs(cc)) w.push(`sampling differs: base ${runs(bc)}, candidate ${runs(cc)}`);
  const [bd, cd] = [bc.task_digests, cc.task_digests];
  const changed = Object.keys(bd).filter((id) => cd[id] !== undefined && cd[id] !== bd[id]);
  if (changed.length)
    w.push(
      `task content differs for ${changed.length} shared task(s): ${changed.slice(0, 10).join(', ')}`,
    );
  return w;
}

export interface CompareOptions {
  /** The rule whose verdicts count (default paired). */
  rule?: Rule;
}

export function compareRuns(
  baseRun: RunSide,
  candRun: RunSide,
  audit: AuditSummary | null = null,
  opts: CompareOptions = {},
): Comparison {
  const rule = opts.rule ?? 'paired';
  // Both sides' labels read alike: the audit's policy applies to both (src/audit/policy.ts).
  const base = { ...baseRun, trials: applyAudit(baseRun.trials, audit?.agreement) };
  const cand = { ...candRun, trials: applyAudit(candRun.trials, audit?.agreement) };
  // Every trial's cell key, computed once (comparisons of thousands of trials run in loops).
  const cellKey = cellOf(severalAgents(base.trials) || severalAgents(cand.trials));
  const keys = { b: base.trials.map(cellKey), c: cand.trials.map(cellKey) };
  const baseCells = new Set(keys.b);
  const candCells = new Set(keys.c);
  const shared = (k: string) => baseCells.has(k) && candCells.has(k);
  const thin = undersampledCells(base, cand, keys, shared);
  const byGroup = new Map<string, GroupTrials>();
  const all = { b: new Tally(), c: new Tally() };
  for (const [trials, side] of [
    [base.trials, 'b'],
    [cand.trials, 'c'],
  ] as const)
    trials.forEach((t, i) => {
      const cell = keys[side][i];
      if (!shared(cell) || thin.has(cell)) return;
      const g = getOrInit(byGroup, groupOfCell(cell), () => ({
        b: new Tally(),
        c: new Tally(),
        bTrials: [],
        cTrials: [],
      }));
      g[side].add(t);
      (side === 'b' ? g.bTrials : g.cTrials).push(t);
      all[side].add(t);
    });
  const figures = [...byGroup]
    .sort((x, y) => (x[0] < y[0] ? -1 : 1))
    .map(([k, g]) => groupFigures(k, g));
  const groups = groupVerdicts(figures, rule);
  const bGroups = new Set([...baseCells].map(groupOfCell));
  const cGroups = new Set([...candCells].map(groupOfCell));
  // A group whose shared cells were all left out for sampling is not "in one run only".
  const sharedGroups = new Set([...baseCells].filter(shared).map(groupOfCell));
  const bTasks = new Set(base.trials.map((t) => t.task_id));
  const cTasks = new Set(cand.trials.map((t) => t.task_id));
  const tasks = {
    shared: [...bTasks].filter((t) => cTasks.has(t)).length,
    only_in_base: [...bTasks].filter((t) => !cTasks.has(t)).sort(naturalCompare),
    only_in_candidate: [...cTasks].filter((t) => !bTasks.has(t)).sort(naturalCompare),
  };
  const inOneRun = (mine: Set<string>) =>
    [...mine]
      .filter((g) => !sharedGroups.has(g))
      .map(show)
      .sort();
  const tested = groups.filter((g) => g.paired.verdict !== null).length;
  const [bc, cc] = [readRunConfig(base), readRunConfig(cand)];
  const c: Comparison = {
    base: { id: base.id, agent: bc.agent },
    candidate: { id: cand.id, agent: cc.agent },
    rule,
    groups,
    family: {
      alpha: FAMILY_ALPHA,
      tested,
      per_group_alpha: FAMILY_ALPHA / Math.max(1, tested),
      unpaired: groups.filter((g) => g.paired.verdict === null).map(groupName),
    },
    label_shifts: labelShifts(all.b, all.c),
    label_scored: { base: all.b.scored, candidate: all.c.scored },
    only_in_base: inOneRun(bGroups),
    only_in_candidate: inOneRun(cGroups),
    tasks,
    excluded_undersampled: [...thin.values()].sort(naturalCompare),
    versions: {
      nanobench: { base: nanobenchOf(bc), candidate: nanobenchOf(cc) },
      scoring_rules: { base: rulesOf(bc), candidate: rulesOf(cc) },
    },
    audit,
    warnings: runDifferences(base, cand),
    regressions: groups.filter((g) => g.verdict === 'regression').length,
    improvements: groups.filter((g) => g.verdict === 'improvement').length,
  };
  c.warnings.push(...comparisonWarnings(c));
  return c;
}

/** What the comparison left out or could not do, after what differs between the runs. */
function comparisonWarnings(c: Comparison): string[] {
  const w: string[] = [];
  const list = (xs: string[]) => `${xs.slice(0, 10).join(', ')}${xs.length > 10 ? ', …' : ''}`;
  if (c.tasks.only_in_base.length || c.tasks.only_in_candidate.length)
    w.push(taskSetWarning(c.tasks));
  const excluded = c.excluded_undersampled;
  if (excluded.length)
    w.push(
      `${excluded.length} tier 3-4 cell(s) left out of every verdict: fewer than ${MIN_RUNS_TIER_3_4} scored runs on a side, and the sampling policy wants ${MIN_RUNS_TIER_3_4} before a regression claim: ${list(excluded)}`,
    );
  if (c.only_in_base.length || c.only_in_candidate.length)
    w.push(
      `not compared (in one run only): ${[...c.only_in_base.map((g) => `${g} (base)`), ...c.only_in_candidate.map((g) => `${g} (candidate)`)].join(', ')}`,
    );
  if (!c.groups.length)
    w.push(
      excluded.length
        ? 'nothing compared: every shared cell was left out as undersampled (above), so neither rule has anything to pair or to overlap'
        : 'nothing compared: the runs share no task scored with the same provider, model and mode, so neither rule has anything to pair or to overlap',
    );
  const nd = c.groups.filter((g) => g.non_deterministic);
  if (nd.length)
    w.push(
      `non-deterministic (temperature not pinned) in ${nd.map(groupName).join(', ')}: spread may come from sampling`,
    );
  return w;
}

function taskSetWarning(t: Comparison['tasks']): string {
  const list = (xs: string[]) =>
    xs.length > 10 ? `${xs.slice(0, 10).join(', ')}, …` : xs.join(', ');
  return `task sets differ: compared on the ${t.shared} shared task(s)${t.only_in_base.length ? `; only in base: ${list(t.only_in_base)}` : ''}${t.only_in_candidate.length ? `; only in candidate: ${list(t.only_in_candidate)}` : ''}`;
}

/**
 * Shared tier 3-4 cells with fewer scored runs than the policy's minimum on either side: cell
 * key -> "task provider/model mode".
 */
function undersampledCells(
  base: RunSide,
  cand: RunSide,
  keys: { b: string[]; c: string[] },
  shared: (k: string) => boolean,
): Map<string, string> {
  const tiers = { ...cand.tiers, ...base.tiers };
  const scored = (trials: TrialOutcome[], cells: string[]) => {
    const m = new Map<string, number>();
    trials.forEach((t, i) => {
      if (t.status === 'scored' && shared(cells[i])) m.set(cells[i], (m.get(cells[i]) ?? 0) + 1);
    });
    return m;
  };
  const b = scored(base.trials, keys.b);
  const c = scored(cand.trials, keys.c);
  const out = new Map<string, string>();
  for (const k of new Set(keys.b)) {
    if (!shared(k)) continue;
    const [agent, provider, model, mode, task] = splitKey(k);
    if (undersampled(tiers[task], Math.min(b.get(k) ?? 0, c.get(k) ?? 0)))
      out.set(k, `${task} ${groupName({ agent, provider, model, mode })}`);
  }
  return out;
}
