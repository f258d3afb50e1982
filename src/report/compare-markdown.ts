// Markdown for `nanobench compare`: a verdict per provider/model/mode and overall, label shifts,
// and every caveat (different tasks, Nanocoder builds, sampling) above the numbers.
import { auditSentence } from '../audit/policy.js';
import type { Comparison, GroupComparison } from '../stats/compare.js';
import { ciText, modelName, NON_DET_MARK, passedText, pct } from './format.js';
import { mdCell } from './markdown.js';

const MAX_SHIFT_ROWS = 15;

function verdictText(g: GroupComparison): string {
  return g.verdict === 'not distinguishable from noise' ? g.verdict : `**${g.verdict}**`;
}

function row(g: GroupComparison, name: string): string {
  const delta =
    g.mean_delta === null ? '—' : `${g.mean_delta >= 0 ? '+' : ''}${g.mean_delta.toFixed(2)}`;
  const mean = (x: number | null) => (x === null ? '—' : x.toFixed(2));
  return `| ${name}${g.non_deterministic ? ` ${NON_DET_MARK}` : ''} | ${g.mode ?? 'all'} | ${passedText(g.base)} ${ciText(g.base.ci95)} | ${passedText(g.candidate)} ${ciText(g.candidate.ci95)} | ${mean(g.base.mean_score)} → ${mean(g.candidate.mean_score)} (${delta}) | ${verdictText(g)} | ${g.base.errors} / ${g.candidate.errors} |`;
}

const share = (x: number | null) => (x === null ? '—' : pct(x));

export function compareMarkdown(c: Comparison): string {
  // Control agents have no model: name their rows by the agent(s).
  const agents =
    c.base.agent === c.candidate.agent ? c.base.agent : `${c.base.agent} → ${c.candidate.agent}`;
  const name = (g: GroupComparison) => mdCell(modelName(g.provider, g.model, agents));
  const lines = [`# NanoBench compare: ${c.base.id} → ${c.candidate.id}`, ''];
  const count = (v: string) => c.groups.filter((g) => g.verdict === v).length;
  lines.push(
    `Result: overall ${verdictText(c.overall)}; per model and mode: ${count('regression')} regression(s), ${count('improvement')} improvement(s), ${count('not distinguishable from noise')} not distinguishable from noise. A change counts only when the 95% Wilson intervals of the two pass rates do not overlap.`,
    '',
  );
  for (const w of c.warnings) lines.push(`> ⚠ ${mdCell(w)}`, '>');
  if (c.warnings.length) lines.splice(-1, 1, '');
  lines.push(
    '| model | mode | base passed [95% CI] | candidate passed [95% CI] | mean score | verdict | infra errors (base / candidate) |',
    '|---|---|---|---|---|---|---|',
  );
  for (const g of c.groups) lines.push(row(g, name(g)));
  lines.push(row(c.overall, '**overall**'));
  const shifts = c.overall.label_shifts.filter((s) => s.base.count !== s.candidate.count);
  lines.push(
    '',
    '## Label shifts (share of scored trials, overall)',
    '',
    mdCell(auditSentence(c.audit)),
    '',
  );
  if (!shifts.length) lines.push('No label changed its count.');
  else {
    lines.push('| label | base | candidate | |', '|---|---|---|---|');
    for (const s of shifts.slice(0, MAX_SHIFT_ROWS))
      lines.push(
        `| ${mdCell(s.label)} | ${share(s.base.share)} (${s.base.count}/${c.overall.base.scored}) | ${share(s.candidate.share)} (${s.candidate.count}/${c.overall.candidate.scored}) | ${s.distinguishable ? '**distinguishable**' : 'within noise'} |`,
      );
    if (shifts.length > MAX_SHIFT_ROWS)
      lines.push('', `_${shifts.length - MAX_SHIFT_ROWS} more labels in --json._`);
  }
  return `${lines.join('\n')}\n`;
}
