// The pull-request comment: a verdict line, the pass rates per provider/model/mode (with the
// base run beside them when there is one), the failure taxonomy and the infra errors. A hidden
// marker lets `ci comment` find and update its own comment instead of adding another.
// The verdict is the interval-overlap rule (src/stats/wilson.ts): a change counts only when the
// two 95% Wilson intervals do not overlap, on the tasks both runs ran, without undersampled tier
// 3-4 cells. Labels follow the Level-4 audit policy, as every report's do, and the comment says
// which audit (agreement, sample size) and which scoring rules.
import {
  type AuditSummary,
  applyAudit,
  auditSentence,
  auditSummary,
  stricterAudit,
} from '../audit/policy.js';
import { readRunConfig } from '../run/stored-config.js';
import { type Rate, rateOf, tallyBy } from '../stats/aggregate.js';
import { compareRuns, type GroupComparison } from '../stats/compare.js';
import type { Verdict } from '../stats/wilson.js';
import type { AuditRecord, RunRecord, TrialRecord } from '../store/store.js';

export const COMMENT_MARKER = '<!-- nanobench -->';

export interface CommentSide {
  run: RunRecord;
  trials: TrialRecord[];
  /** Task id -> complexity tier (undersampled tier 3-4 cells are left out of verdicts). */
  tiers?: Record<string, number>;
  /** The latest Level-4 audit of the side's database. */
  audit?: AuditRecord;
}

interface Row {
  group: string;
  candidate: Rate;
  base?: Rate;
  verdict?: Verdict;
}

const groupName = (provider: string, model: string, mode: string | null) =>
  `${provider === 'none' ? '(no model)' : `${provider}/${model}`} · ${mode ?? 'all'}`;

/** With a base: the same comparison as `nanobench compare` (shared cells only). */
function comparedRows(
  cand: CommentSide,
  base: CommentSide,
  audit: AuditSummary | null,
): { rows: Row[]; warnings: string[] } {
  const c = compareRuns(
    { id: base.run.id, config: base.run.config, trials: base.trials, tiers: base.tiers },
    { id: cand.run.id, config: cand.run.config, trials: cand.trials, tiers: cand.tiers },
    audit,
  );
  const row = (g: GroupComparison, name: string): Row => ({
    group: name,
    candidate: g.candidate,
    base: g.base,
    verdict: g.verdict,
  });
  return {
    rows: [
      ...c.groups.map((g) => row(g, groupName(g.provider, g.model, g.mode))),
      row(c.overall, '**overall**'),
    ],
    warnings: c.warnings,
  };
}

function aloneRows(cand: CommentSide): Row[] {
  const groups = tallyBy(cand.trials, (t) => groupName(t.provider, t.model, t.mode));
  return [
    ...[...groups]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([group, t]) => ({ group, candidate: t.rate() })),
    { group: '**overall**', candidate: rateOf(cand.trials) },
  ];
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').replace(/[|`]/g, "'").slice(0, 600);
const pct = (x: number) => `${Math.round(x * 100)}%`;
const fmtRate = (r: Rate) =>
  `${r.passed}/${r.scored} (${r.scored ? pct(r.passed / r.scored) : '—'}), CI ${pct(r.ci95.low)}–${pct(r.ci95.high)}`;
const fmtMean = (r: Rate) => (r.mean_score === null ? '—' : r.mean_score.toFixed(2));

function headline(rs: Row[], hasBase: boolean): string {
  if (!hasBase) return 'no baseline given: pass rates only, no regression verdict';
  const vs = rs.map((r) => r.verdict);
  if (vs.includes('regression')) return '❌ **regression** (intervals do not overlap)';
  if (vs.includes('improvement')) return '✅ **improvement** (intervals do not overlap)';
  return '➖ **no change beyond noise**';
}

function buildOf(run: RunRecord): string {
  const cfg = readRunConfig(run);
  const info = cfg.agent_info;
  const v = info.nanocoder_version ? `Nanocoder ${info.nanocoder_version}` : '';
  const c = info.nanocoder_commit ? ` @ ${String(info.nanocoder_commit).slice(0, 10)}` : '';
  const agent = v ? `${v}${c}` : cfg.agent;
  const nb = cfg.nanobench_version ? `NanoBench ${cfg.nanobench_version}` : '';
  const rules =
    typeof cfg.scoring_rules_version === 'number'
      ? `scoring rules ${cfg.scoring_rules_version}`
      : 'scoring rules not recorded';
  return [agent, nb, rules].filter(Boolean).join(', ');
}

function taxonomy(cand: TrialRecord[], base?: TrialRecord[]): string[] {
  const count = (ts: TrialRecord[]) => {
    const m = new Map<string, number>();
    for (const t of ts) {
      const label = t.status === 'error' ? 'infra error (not scored)' : (t.label ?? '?');
      m.set(label, (m.get(label) ?? 0) + 1);
    }
    return m;
  };
  const c = count(cand);
  const b = base ? count(base) : undefined;
  const labels = [...new Set([...c.keys(), ...(b?.keys() ?? [])])].sort(
    (x, y) => (c.get(y) ?? 0) - (c.get(x) ?? 0) || x.localeCompare(y),
  );
  const lines = b
    ? ['| label | base | this PR |', '|---|---|---|']
    : ['| label | trials |', '|---|---|'];
  for (const l of labels)
    lines.push(
      b ? `| ${l} | ${b.get(l) ?? 0} | ${c.get(l) ?? 0} |` : `| ${l} | ${c.get(l) ?? 0} |`,
    );
  return lines;
}

/** Links into a `nanobench view` serving these runs, when its base URL is known. */
export function viewLinks(viewUrl: string, candidate: string, base?: string): string {
  const root = viewUrl.replace(/\/+$/, '');
  const run = `[open the run in nanobench view](${root}/runs/${encodeURIComponent(candidate)})`;
  if (!base) return run;
  const q = `base=${encodeURIComponent(base)}&candidate=${encodeURIComponent(candidate)}`;
  return `${run} · [the comparison](${root}/compare?${q})`;
}

export function commentBody(
  candidateSide: CommentSide,
  baseSide?: CommentSide,
  opts: { viewUrl?: string } = {},
): string {
  // One audit for both sides (the stricter), applied to every label the comment shows.
  const audit = auditSummary(stricterAudit(candidateSide.audit, baseSide?.audit));
  const shown = (s: CommentSide): CommentSide => ({
    ...s,
    trials: applyAudit(s.trials, audit?.agreement),
  });
  const candidate = shown(candidateSide);
  const base = baseSide && shown(baseSide);
  const { rows: rs, warnings } = base
    ? comparedRows(candidate, base, audit)
    : { rows: aloneRows(candidate), warnings: [] };
  const lines = [
    COMMENT_MARKER,
    '### NanoBench',
    '',
    `Verdict: ${headline(rs, Boolean(base))}`,
    '',
    base
      ? `This PR: run \`${candidate.run.id}\` (${buildOf(candidate.run)}) · base: run \`${base.run.id}\` (${buildOf(base.run)})`
      : `Run \`${candidate.run.id}\` (${buildOf(candidate.run)})`,
    '',
    ...(opts.viewUrl ? [viewLinks(opts.viewUrl, candidate.run.id, base?.run.id), ''] : []),
  ];
  for (const w of warnings) lines.push(`> ⚠ ${oneLine(w)}`, '');
  // A collapsed taxonomy changes what the labels below mean: say so where it is seen.
  if (audit?.collapsed) lines.push(`> ${auditSentence(audit)}`, '');
  if (base) {
    lines.push('| model · mode | base passed | this PR passed | mean (base → PR) | verdict |');
    lines.push('|---|---|---|---|---|');
    for (const r of rs)
      lines.push(
        `| ${r.group} | ${fmtRate(r.base!)} | ${fmtRate(r.candidate)} | ${fmtMean(r.base!)} → ${fmtMean(r.candidate)} | ${r.verdict} |`,
      );
  } else {
    lines.push('| model · mode | passed | mean score | infra errors |', '|---|---|---|---|');
    for (const r of rs)
      lines.push(
        `| ${r.group} | ${fmtRate(r.candidate)} | ${fmtMean(r.candidate)} | ${r.candidate.errors} |`,
      );
  }
  lines.push('', '<details><summary>Failure taxonomy</summary>', '');
  lines.push(
    ...taxonomy(candidate.trials, base?.trials),
    '',
    auditSentence(audit),
    '',
    '</details>',
    '',
  );
  const errors = candidate.trials.filter((t) => t.status === 'error');
  if (errors.length)
    lines.push(
      `${errors.length} trial(s) hit an infrastructure error and are not scored (e.g. ${errors[0].task_id}: ${oneLine(errors[0].error ?? '')}).`,
      '',
    );
  lines.push(
    '<sub>Pass rates with 95% Wilson intervals; a verdict needs non-overlapping intervals. Produced by `nanobench ci comment`.</sub>',
    '',
  );
  return lines.join('\n');
}
