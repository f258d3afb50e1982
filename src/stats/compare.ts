// Comparing two runs (BASE -> CANDIDATE): per provider/model/mode and overall, a verdict by the
// interval-overlap rule, plus label shifts. Only cells (provider, model, task, mode) present in
// both runs are compared, so a changed task set can never pass for a change in the agent; tier 3-4
// cells with fewer than five scored runs on a side are left out of the verdicts (whitepaper
// §8.5: such scores need five runs before a regression claim). What was left out, and runs scored
// by different rules, are reported as warnings.
import { type AuditSummary, applyAudit } from '../audit/policy.js';
import {
  getOrInit,
  joinKey,
  naturalCompare,
  type Rate,
  splitKey,
  Tally,
  type TrialOutcome,
} from './aggregate.js';
import { MIN_RUNS_TIER_3_4, undersampled } from './sampling.js';
import { overlaps, type Verdict, verdict, wilson } from './wilson.js';

export interface LabelShift {
  label: string;
  base: { count: number; share: number | null };
  candidate: { count: number; share: number | null };
  /** The Wilson intervals of the two shares do not overlap. */
  distinguishable: boolean;
}

export interface GroupComparison {
  provider: string;
  model: string;
  /** null for the overall row. */
  mode: string | null;
  base: Rate;
  candidate: Rate;
  verdict: Verdict;
  /** candidate mean score - base mean score. */
  mean_delta: number | null;
  non_deterministic: boolean;
  label_shifts: LabelShift[];
}

export interface RunSide {
  id: string;
  config: Record<string, unknown>;
  trials: TrialOutcome[];
  /** Task id -> complexity tier, when known (for the undersampling warning). */
  tiers?: Record<string, number>;
}

export interface Comparison {
  base: { id: string; agent: string };
  candidate: { id: string; agent: string };
  groups: GroupComparison[];
  overall: GroupComparison;
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
  regressions: number;
  improvements: number;
}

function labelShifts(b: Tally, c: Tally): LabelShift[] {
  const labels = new Set([...b.labels.keys(), ...c.labels.keys()]);
  const side = (t: Tally, l: string) => {
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

function compareTallies(
  provider: string,
  model: string,
  mode: string | null,
  b: Tally,
  c: Tally,
): GroupComparison {
  const base = b.rate();
  const candidate = c.rate();
  return {
    provider,
    model,
    mode,
    base,
    candidate,
    verdict: verdict(base.ci95, candidate.ci95),
    mean_delta:
      base.mean_score !== null && candidate.mean_score !== null
        ? candidate.mean_score - base.mean_score
        : null,
    non_deterministic: base.non_deterministic || candidate.non_deterministic,
    label_shifts: labelShifts(b, c),
  };
}

const cellOf = (t: TrialOutcome) => joinKey(t.provider, t.model, t.mode, t.task_id);
const groupOf = (t: TrialOutcome) => joinKey(t.provider, t.model, t.mode);
const show = (k: string) => {
  const [p, m, mode] = splitKey(k);
  return `${p}/${m} ${mode}`;
};

function str(x: unknown): string | undefined {
  return typeof x === 'string' || typeof x === 'number' ? String(x) : undefined;
}

const rulesOf = (c: Record<string, unknown>) =>
  typeof c.scoring_rules_version === 'number' ? c.scoring_rules_version : null;
const nanobenchOf = (c: Record<string, unknown>) =>
  typeof c.nanobench_version === 'string' ? c.nanobench_version : null;

interface RecordedVersion {
  name: string;
  version: string | null;
}

const versionsOf = (c: Record<string, unknown>) =>
  Array.isArray(c.dataset_versions) ? (c.dataset_versions as RecordedVersion[]) : undefined;
const showVersions = (v: RecordedVersion[]) =>
  v.map((d) => `${d.name} ${d.version ?? '(no manifest)'}`).join(' + ') || '(none)';

/**
 * The runs ran different versions of their datasets (as their manifests said when they started):
 * a sentence saying which, else undefined. Runs that predate version records cannot tell.
 */
export function datasetVersionDifference(base: RunSide, cand: RunSide): string | undefined {
  const b = versionsOf(base.config);
  const c = versionsOf(cand.config);
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
  // Labels (and so label shifts) depend on the rules that scored them: say so first.
  const [rb, rc] = [rulesOf(base.config), rulesOf(cand.config)];
  const rules = (v: number | null) => (v === null ? 'not recorded (1 or older)' : String(v));
  if (rb !== rc)
    w.push(
      `scored by different rules: base scoring rules ${rules(rb)}, candidate ${rules(rc)}; a label shift may come from the rules, not the agent (see docs/ARCHITECTURE.md, scoring rules versions)`,
    );
  const [nb, nc] = [nanobenchOf(base.config), nanobenchOf(cand.config)];
  if (nb !== nc)
    w.push(
      `NanoBench differs: base ${nb ?? '(not recorded)'}, candidate ${nc ?? '(not recorded)'}`,
    );
  const versions = datasetVersionDifference(base, cand);
  if (versions)
    w.push(`${versions}; compared on the tasks they share (with their content differences listed)`);
  else if (!versionsOf(base.config) !== !versionsOf(cand.config))
    w.push(
      `the ${versionsOf(base.config) ? 'candidate' : 'base'} run predates dataset version records: whether both ran the same dataset version is unknown`,
    );
  const bi = (base.config.agent_info ?? {}) as Record<string, unknown>;
  const ci = (cand.config.agent_info ?? {}) as Record<string, unknown>;
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
  if (base.config.agent !== cand.config.agent)
    w.push(`agents differ: base ${str(base.config.agent)}, candidate ${str(cand.config.agent)}`);
  const runs = (c: Record<string, unknown>) =>
    typeof c.runs === 'number' ? `--runs ${c.runs}` : 'runs by tier';
  if (runs(base.config) !== runs(cand.config))
    w.push(`sampling differs: base ${runs(base.config)}, candidate ${runs(cand.config)}`);
  const bd = base.config.task_digests as Record<string, string> | undefined;
  const cd = cand.config.task_digests as Record<string, string> | undefined;
  if (bd && cd) {
    const changed = Object.keys(bd).filter((id) => cd[id] !== undefined && cd[id] !== bd[id]);
    if (changed.length)
      w.push(
        `task content differs for ${changed.length} shared task(s): ${changed.slice(0, 10).join(', ')}`,
      );
  }
  return w;
}

export function compareRuns(
  baseRun: RunSide,
  candRun: RunSide,
  audit: AuditSummary | null = null,
): Comparison {
  // Both sides' labels read alike: the audit's policy applies to both (src/audit/policy.ts).
  const base = { ...baseRun, trials: applyAudit(baseRun.trials, audit?.agreement) };
  const cand = { ...candRun, trials: applyAudit(candRun.trials, audit?.agreement) };
  const baseCells = new Set(base.trials.map(cellOf));
  const candCells = new Set(cand.trials.map(cellOf));
  const shared = (k: string) => baseCells.has(k) && candCells.has(k);
  const thin = undersampledCells(base, cand, shared);
  const excluded = new Set(thin.keys());
  const counted = (k: string) => shared(k) && !excluded.has(k);
  const tallies = new Map<string, { b: Tally; c: Tally }>();
  const allB = new Tally();
  const allC = new Tally();
  for (const [trials, side] of [
    [base.trials, 'b'],
    [cand.trials, 'c'],
  ] as const)
    for (const t of trials) {
      if (!counted(cellOf(t))) continue;
      const g = groupOf(t);
      getOrInit(tallies, g, () => ({ b: new Tally(), c: new Tally() }))[side].add(t);
      (side === 'b' ? allB : allC).add(t);
    }
  const groups = [...tallies]
    .sort((x, y) => (x[0] < y[0] ? -1 : 1))
    .map(([k, { b, c }]) => {
      const [provider, model, mode] = splitKey(k);
      return compareTallies(provider, model, mode, b, c);
    });
  const bGroups = new Set(base.trials.map(groupOf));
  const cGroups = new Set(cand.trials.map(groupOf));
  // A group whose shared cells were all left out for sampling is not "in one run only".
  const sharedGroups = new Set(
    [...baseCells].filter(shared).map((k) => joinKey(...splitKey(k).slice(0, 3))),
  );
  const bTasks = new Set(base.trials.map((t) => t.task_id));
  const cTasks = new Set(cand.trials.map((t) => t.task_id));
  const tasks = {
    shared: [...bTasks].filter((t) => cTasks.has(t)).length,
    only_in_base: [...bTasks].filter((t) => !cTasks.has(t)).sort(naturalCompare),
    only_in_candidate: [...cTasks].filter((t) => !bTasks.has(t)).sort(naturalCompare),
  };
  const only_in_base = [...bGroups]
    .filter((g) => !sharedGroups.has(g))
    .map(show)
    .sort();
  const only_in_candidate = [...cGroups]
    .filter((g) => !sharedGroups.has(g))
    .map(show)
    .sort();
  const warnings = runDifferences(base, cand);
  if (tasks.only_in_base.length || tasks.only_in_candidate.length)
    warnings.push(taskSetWarning(tasks));
  const excludedNames = [...thin.values()].sort(naturalCompare);
  if (excludedNames.length)
    warnings.push(
      `${excludedNames.length} tier 3-4 cell(s) left out of every verdict: fewer than ${MIN_RUNS_TIER_3_4} scored runs on a side, and the sampling policy wants ${MIN_RUNS_TIER_3_4} before a regression claim: ${excludedNames.slice(0, 10).join(', ')}${excludedNames.length > 10 ? ', …' : ''}`,
    );
  if (only_in_base.length || only_in_candidate.length)
    warnings.push(
      `not compared (in one run only): ${[...only_in_base.map((g) => `${g} (base)`), ...only_in_candidate.map((g) => `${g} (candidate)`)].join(', ')}`,
    );
  const nd = groups.filter((g) => g.non_deterministic);
  if (nd.length)
    warnings.push(
      `non-deterministic (temperature not pinned) in ${nd.map((g) => `${g.provider}/${g.model} ${g.mode}`).join(', ')}: spread may come from sampling`,
    );
  const overall = compareTallies('all', 'all', null, allB, allC);
  const all = [...groups, overall];
  return {
    base: { id: base.id, agent: str(base.config.agent) ?? '?' },
    candidate: { id: cand.id, agent: str(cand.config.agent) ?? '?' },
    groups,
    overall,
    only_in_base,
    only_in_candidate,
    tasks,
    excluded_undersampled: excludedNames,
    versions: {
      nanobench: { base: nanobenchOf(base.config), candidate: nanobenchOf(cand.config) },
      scoring_rules: { base: rulesOf(base.config), candidate: rulesOf(cand.config) },
    },
    audit,
    warnings,
    regressions: all.filter((g) => g.verdict === 'regression').length,
    improvements: all.filter((g) => g.verdict === 'improvement').length,
  };
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
  shared: (k: string) => boolean,
): Map<string, string> {
  const tiers = { ...cand.tiers, ...base.tiers };
  const scored = (trials: TrialOutcome[]) => {
    const m = new Map<string, number>();
    for (const t of trials)
      if (t.status === 'scored' && shared(cellOf(t))) m.set(cellOf(t), (m.get(cellOf(t)) ?? 0) + 1);
    return m;
  };
  const b = scored(base.trials);
  const c = scored(cand.trials);
  const out = new Map<string, string>();
  for (const k of new Set([...base.trials.map(cellOf), ...cand.trials.map(cellOf)])) {
    if (!shared(k)) continue;
    const [provider, model, mode, task] = splitKey(k);
    if (undersampled(tiers[task], Math.min(b.get(k) ?? 0, c.get(k) ?? 0)))
      out.set(k, `${task} ${provider}/${model} ${mode}`);
  }
  return out;
}
