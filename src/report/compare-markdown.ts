// Markdown for `nanobench compare`: a statement over groups (never a pooled row), the rule that
// decided it and the smallest change it could see, every caveat above the numbers, then one row
// per provider/model/mode with the paired verdict beside the whitepaper's overlap verdict, and
// the label shifts.
import { auditSentence } from '../audit/policy.js';
import type { Comparison, GroupComparison } from '../stats/compare.js';
import type { TaskWeightedRate } from '../stats/tasks.js';
import {
  agentsOf,
  detectableText,
  groupModel,
  headline,
  powerSentence,
  pText,
  ruleSentence,
  USAGE_NOTE,
} from './compare-words.js';
import {
  ciText,
  costChangeText,
  NON_DET_MARK,
  passedText,
  pct,
  ppInterval,
  ppText,
  tokensChangeText,
} from './format.js';
import { mdCell } from './markdown.js';

const MAX_SHIFT_ROWS = 15;

function verdictText(v: string | null): string {
  if (v === null) return 'cannot pair: overlap decides';
  return v === 'not distinguishable from noise' ? v : `**${v}**`;
}

const rateText = (r: TaskWeightedRate) =>
  r.pass_rate === null ? '—' : `${pct(r.pass_rate)} [${ciText(r.ci95)}]`;
const mean = (x: number | null) => (x === null ? '—' : x.toFixed(2));

export const COMPARE_HEADER = [
  'model',
  'mode',
  'tasks',
  'base, each task once [95% CI]',
  'candidate [95% CI]',
  'Δ pass rate, paired [95% CI]',
  'tokens / trial (Δ)',
  'cost / trial (Δ)',
  'cost / solved trial (Δ)',
  'p (Holm)',
  'paired verdict',
  'trials passed, base → candidate [95% CI]',
  'overlap verdict',
  'detectable',
  'mean score',
  'infra errors (base / candidate)',
];

function row(g: GroupComparison, name: string): string {
  const p = g.paired;
  const delta =
    p.mean_score.estimate === null
      ? ''
      : ` (${p.mean_score.estimate >= 0 ? '+' : ''}${p.mean_score.estimate.toFixed(2)})`;
  const cells = [
    `${name}${g.non_deterministic ? ` ${NON_DET_MARK}` : ''}`,
    g.mode,
    String(p.tasks),
    rateText(g.base_tasks),
    rateText(g.candidate_tasks),
    p.tasks ? `${ppText(p.pass_rate.estimate)} ${ppInterval(p.pass_rate.ci95)}` : '—',
    tokensChangeText(g.usage),
    costChangeText(g.usage, 'trial'),
    costChangeText(g.usage, 'solved'),
    p.tasks ? `${pText(p.test.p_value)} (${p.p_holm === null ? '—' : pText(p.p_holm)})` : '—',
    verdictText(p.verdict),
    `${passedText(g.base)} ${ciText(g.base.ci95)} → ${passedText(g.candidate)} ${ciText(g.candidate.ci95)}`,
    verdictText(g.overlap.verdict),
    detectableText(g),
    `${mean(g.base_tasks.mean_score)} → ${mean(g.candidate_tasks.mean_score)}${delta}`,
    `${g.base.errors} / ${g.candidate.errors}`,
  ];
  return `| ${cells.join(' | ')} |`;
}

const share = (x: number | null) => (x === null ? '—' : pct(x));

function labelShiftLines(c: Comparison): string[] {
  const shifts = c.label_shifts.filter((s) => s.base.count !== s.candidate.count);
  const lines = [
    '## Label shifts (share of scored trials, all groups together)',
    '',
    `Descriptive, not a verdict. ${mdCell(auditSentence(c.audit))}`,
    '',
  ];
  if (!shifts.length) return [...lines, 'No label changed its count.'];
  lines.push('| label | base | candidate | |', '|---|---|---|---|');
  for (const s of shifts.slice(0, MAX_SHIFT_ROWS))
    lines.push(
      `| ${mdCell(s.label)} | ${share(s.base.share)} (${s.base.count}/${c.label_scored.base}) | ${share(s.candidate.share)} (${s.candidate.count}/${c.label_scored.candidate}) | ${s.distinguishable ? '**distinguishable**' : 'within noise'} |`,
    );
  if (shifts.length > MAX_SHIFT_ROWS)
    lines.push('', `_${shifts.length - MAX_SHIFT_ROWS} more labels in --json._`);
  return lines;
}

export function compareMarkdown(c: Comparison): string {
  const agents = agentsOf(c);
  const name = (g: GroupComparison) => mdCell(groupModel(g, agents));
  const lines = [`# NanoBench compare: ${c.base.id} → ${c.candidate.id}`, ''];
  lines.push(`Result: ${mdCell(headline(c))}`, '', mdCell(ruleSentence(c)), '');
  if (c.groups.length) lines.push(mdCell(powerSentence(c)), '');
  for (const w of c.warnings) lines.push(`> ⚠ ${mdCell(w)}`, '>');
  if (c.warnings.length) lines.splice(-1, 1, '');
  lines.push(`| ${COMPARE_HEADER.join(' | ')} |`, `|${COMPARE_HEADER.map(() => '---').join('|')}|`);
  for (const g of c.groups) lines.push(row(g, name(g)));
  lines.push(
    '',
    `Rates count each task once (its mean over runs), with a 95% interval over tasks; Δ is the mean of the per-task differences, with a t interval; p is the sign-flip test over tasks (each difference weighed by its runs), Holm-adjusted over the groups tested. "Trials passed" pools the runs, as the overlap rule does. "Detectable": the smallest change this group detects with 80% power. ${USAGE_NOTE}`,
    '',
    ...labelShiftLines(c),
  );
  return `${lines.join('\n')}\n`;
}
