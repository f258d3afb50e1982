// The pull-request comment: a verdict line over groups (never a pooled row), what the comparison
// could detect, the pass rates per provider/model/mode (with the base run beside them when there is
// one), the failure taxonomy and the infra errors. A hidden marker lets `ci comment` find and
// update its own comment instead of adding another.
// With a base, the comment is `nanobench compare`'s comparison (compareRuns: shared cells only,
// undersampled tier 3-4 cells left out, the paired verdict beside the overlap one, --rule picking
// which counts). Labels follow the Level-4 audit policy, as every report's do, and the comment says
// which audit (agreement, sample size) and which scoring rules.
import {
  type AuditSummary,
  applyAudit,
  auditSentence,
  auditSummary,
  stricterAudit,
} from '../audit/policy.js';
import {
  agentsOf,
  groupModel,
  headline,
  powerSentence,
  pText,
  ruleSentence,
} from '../report/compare-words.js';
import { ciText, costChangeText, ppInterval, ppText, tokensChangeText } from '../report/format.js';
import { readRunConfig } from '../run/stored-config.js';
import { joinKey, type Rate, splitKey, tallyBy } from '../stats/aggregate.js';
import { type Comparison, compareRuns, type Rule } from '../stats/compare.js';
import { type TaskWeightedRate, taskResults, taskWeightedRate } from '../stats/tasks.js';
import type { AuditRecord, RunRecord, TrialRecord } from '../store/store.js';

export const COMMENT_MARKER = '<!-- nanobench -->';

export interface CommentSide {
  run: RunRecord;
  trials: TrialRecord[];
  /** Task id -> complexity tier (undersampled tier 3-4 cells are left out of verdicts). */
  tiers?: Record<string, number>;
  /** The latest Level-4 audit of the side's database. */
  audit?: AuditRecord;
  /** The run as the viewer's URLs name it (DB:RUNID when the two sides are two databases). */
  viewRef?: string;
}

const groupName = (provider: string, model: string, mode: string) =>
  `${provider === 'none' ? '(no model)' : `${provider}/${model}`} · ${mode}`;

/** With a base: the same comparison as `nanobench compare` (shared cells only). */
function compared(cand: CommentSide, base: CommentSide, audit: AuditSummary | null, rule: Rule) {
  return compareRuns(
    { id: base.run.id, config: base.run.config, trials: base.trials, tiers: base.tiers },
    { id: cand.run.id, config: cand.run.config, trials: cand.trials, tiers: cand.tiers },
    audit,
    { rule },
  );
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').replace(/[|`]/g, "'").slice(0, 600);
const pct = (x: number) => `${Math.round(x * 100)}%`;
const fmtTrials = (r: Rate, ci = true) =>
  `${r.passed}/${r.scored} (${r.scored ? pct(r.passed / r.scored) : '—'})${ci ? `, CI ${pct(r.ci95.low)}–${pct(r.ci95.high)}` : ''}`;
const fmtTasks = (r: TaskWeightedRate) =>
  r.pass_rate === null ? '—' : `${pct(r.pass_rate)} [${ciText(r.ci95)}]`;

function verdictLine(c: Comparison): string {
  const n = c.groups.length;
  const of = `${n} group${n === 1 ? '' : 's'}, ${c.rule} rule`;
  if (c.regressions) return `❌ **regression** in ${c.regressions} of ${of}`;
  if (c.improvements) return `✅ **improvement** in ${c.improvements} of ${of}`;
  return n ? `➖ **no change beyond noise** (${of})` : '➖ **nothing compared**';
}

function comparedTable(c: Comparison): string[] {
  const agents = agentsOf(c);
  const lines = [
    '| model · mode | tasks | base (each task once) | this PR | Δ paired [95% CI], p Holm | tokens / trial, base → PR | cost / trial · / solved, base → PR | paired | overlap (trials, base → PR) |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const g of c.groups) {
    const p = g.paired;
    const delta = p.tasks
      ? `${ppText(p.pass_rate.estimate)} ${ppInterval(p.pass_rate.ci95)}${p.p_holm === null ? '' : `, p ${pText(p.p_holm)}`}`
      : '—';
    lines.push(
      `| ${oneLine(groupModel(g, agents))} · ${g.mode} | ${p.tasks} | ${fmtTasks(g.base_tasks)} | ${fmtTasks(g.candidate_tasks)} | ${delta} | ${tokensChangeText(g.usage)} | ${costChangeText(g.usage, 'trial')} · ${costChangeText(g.usage, 'solved')} | ${p.verdict ?? 'cannot pair: overlap decides'} | ${fmtTrials(g.base)} → ${fmtTrials(g.candidate)}: ${g.overlap.verdict} |`,
    );
  }
  return lines;
}

function aloneTable(cand: CommentSide): string[] {
  const groups = [...tallyBy(cand.trials, (t) => joinKey(t.provider, t.model, t.mode))].sort(
    (a, b) => (a[0] < b[0] ? -1 : 1),
  );
  const lines = [
    '| model · mode | tasks | passed (each task once) [95% CI] | trials passed | mean score | infra errors |',
    '|---|---|---|---|---|---|',
  ];
  const halves: number[] = [];
  for (const [k, tally] of groups) {
    const [provider, model, mode] = splitKey(k);
    const r = tally.rate();
    const t = taskWeightedRate(
      taskResults(
        cand.trials.filter((x) => x.provider === provider && x.model === model && x.mode === mode),
      ),
    );
    if (t.half_width !== null) halves.push(t.half_width);
    lines.push(
      `| ${groupName(provider, model, mode)} | ${t.tasks} | ${fmtTasks(t)} | ${fmtTrials(r, false)} | ${t.mean_score === null ? '—' : t.mean_score.toFixed(2)} | ${r.errors} |`,
    );
  }
  if (halves.length)
    lines.push(
      '',
      `This run places each rate within ±${halfText(halves)} (the half-width of its 95% interval over tasks); differences smaller than that read as noise.`,
    );
  return lines;
}

function halfText(xs: number[]): string {
  const lo = Math.round(Math.min(...xs) * 100);
  const hi = Math.round(Math.max(...xs) * 100);
  return lo === hi ? `${lo} pp` : `${lo}–${hi} pp`;
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
      const label = t.status === 'error' ? 'infra error (not scored)' : t.label;
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
  opts: { viewUrl?: string; rule?: Rule } = {},
): string {
  // One audit for both sides (the stricter), applied to every label the comment shows.
  const audit = auditSummary(stricterAudit(candidateSide.audit, baseSide?.audit));
  const shown = (s: CommentSide): CommentSide => ({
    ...s,
    trials: applyAudit(s.trials, audit?.agreement),
  });
  const candidate = shown(candidateSide);
  const base = baseSide && shown(baseSide);
  const c = base ? compared(candidate, base, audit, opts.rule ?? 'paired') : undefined;
  const lines = [
    COMMENT_MARKER,
    '### NanoBench',
    '',
    `Verdict: ${c ? verdictLine(c) : 'no baseline given: pass rates only, no regression verdict'}`,
    '',
  ];
  if (c) {
    if (c.regressions || c.improvements) lines.push(oneLine(headline(c)), '');
    if (c.groups.length) lines.push(oneLine(powerSentence(c)), '');
  }
  lines.push(
    base
      ? `This PR: run \`${candidate.run.id}\` (${buildOf(candidate.run)}) · base: run \`${base.run.id}\` (${buildOf(base.run)})`
      : `Run \`${candidate.run.id}\` (${buildOf(candidate.run)})`,
    '',
    ...(opts.viewUrl
      ? [
          viewLinks(
            opts.viewUrl,
            candidate.viewRef ?? candidate.run.id,
            base && (base.viewRef ?? base.run.id),
          ),
          '',
        ]
      : []),
  );
  for (const w of c?.warnings ?? []) lines.push(`> ⚠ ${oneLine(w)}`, '');
  // A collapsed taxonomy changes what the labels below mean: say so where it is seen.
  if (audit?.collapsed) lines.push(`> ${auditSentence(audit)}`, '');
  lines.push(...(c ? comparedTable(c) : aloneTable(candidate)));
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
      `${errors.length} trial(s) hit an infrastructure error and are not scored (e.g. ${errors[0].task_id}: ${oneLine(errors[0].error)}).`,
      '',
    );
  lines.push(
    `<sub>${c ? oneLine(ruleSentence(c)) : 'Rates count each task once (its mean over runs), with a 95% interval over tasks.'} Produced by \`nanobench ci comment\`.</sub>`,
    '',
  );
  return lines.join('\n');
}
