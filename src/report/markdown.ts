// Markdown report of one stored run, sized for a pull-request comment (GitHub allows 65,536
// characters): every section is bounded, and the provider matrix, which grows with tasks x models,
// goes last and is cut to the space left, with a note saying how many rows were left out.
import { applyAudit, auditSentence, auditSummary } from '../audit/policy.js';
import { integrityMarkdown, sandboxWarningMarkdown } from '../integrity/report.js';
import type { AuditRecord, RunRecord, TrialRecord } from '../store/store.js';
import { breakdownValue } from './breakdown.js';
import {
  ciText,
  costPerSolvedText,
  costPerTrialText,
  DIMENSION_TITLES,
  EVIDENCE_WORDS,
  halfWidthText,
  NO_EVIDENCE_MARK,
  NON_DET_MARK,
  PRE_CUTOFF_MARK,
  passedText,
  pct,
  plural,
  ppInterval,
  ppText,
  precisionSentence,
  rowName,
  score2,
  taskRateText,
  tokensText,
  UNDERSAMPLED_MARK,
} from './format.js';
import { HARNESS_HEADER, HARNESS_SENTENCE, harnessRows } from './harness.js';
import { defaultReportInputs } from './inputs.js';
import { lifecycleLines } from './lifecycle.js';
import type { MatrixCell } from './matrix.js';
import { buildReport, type Report } from './model.js';
import { provisionText } from './phases.js';

/** How every report reads its rates (markdown and HTML say the same). */
export const RATES_SENTENCE =
  "A model's pass rate counts each task once (the mean over its runs), with a 95% interval over tasks that treats a task's runs as one cluster; trials passed (k/n) pool the runs; a matrix cell (one task) shows k/n with its 95% Wilson interval.";

export const MODEL_HEADER = [
  'model',
  'mode',
  'tasks',
  'pass rate, each task once [95% CI]',
  '±',
  'trials passed',
  'mean score',
  'infra errors',
];

/** The usage columns of the models table, when a provider proxy counted something. */
export const USAGE_HEADER = ['tokens in / out per trial', 'cost / trial', 'cost / solved trial'];

/** Below GitHub's 65,536-character comment limit, with room for a caller's header. */
export const MARKDOWN_BUDGET = 60_000;
const MAX_BREAKDOWN_ROWS = 25;
const MAX_ERROR_LINES = 10;

/** Escape what would break a table cell. */
export const mdCell = (s: string) =>
  s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/\s+/g, ' ');

function table(header: string[], rows: string[][], max = Number.POSITIVE_INFINITY): string[] {
  const out = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
  for (const r of rows.slice(0, max)) out.push(`| ${r.join(' | ')} |`);
  if (rows.length > max)
    out.push('', `_${rows.length - max} more rows not shown (see --format json or html)._`);
  return out;
}

function marks(c: { non_deterministic: boolean }, extra: string[] = []): string {
  const m = [...(c.non_deterministic ? [NON_DET_MARK] : []), ...extra];
  return m.length ? ` · ${m.join(', ')}` : '';
}

function header(r: Report): string[] {
  const info = r.run.agent_info;
  const nanocoder = info.nanocoder_version
    ? ` · Nanocoder ${info.nanocoder_version}${info.nanocoder_commit ? ` (${String(info.nanocoder_commit).slice(0, 12)})` : ''}`
    : '';
  const lines = [
    `# NanoBench run ${r.run.id}`,
    '',
    `Agent \`${r.run.agent}\`${nanocoder} · status: ${r.run.status} · trials: ${r.run.trials}/${r.run.plan_size} · scored: ${r.overall.scored} · infra errors: ${r.overall.errors} (shown beside the rates, never inside)`,
    '',
    `Sampling: ${r.sampling.summary}.${r.sampling.undersampled_cells ? ` ${plural(r.sampling.undersampled_cells, 'tier 3-4 cell')} ha${r.sampling.undersampled_cells === 1 ? 's' : 've'} fewer than 5 scored runs (undersampled: too few for a regression claim).` : ''} ${RATES_SENTENCE}`,
  ];
  if (r.task_meta.note) lines.push('', `> Note: ${r.task_meta.note}.`);
  return lines;
}

function modelsSection(r: Report): string[] {
  // Token and cost columns only when a provider proxy counted something (not for control agents).
  const usage = r.models.some((m) => m.usage.trials > 0);
  const rows = r.models.map((m) => [
    mdCell(rowName(m, r.run.agent)) + marks(m.rate),
    m.mode,
    String(m.tasks.tasks),
    taskRateText(m.tasks),
    halfWidthText(m.tasks),
    passedText(m.rate),
    score2(m.tasks.mean_score),
    String(m.rate.errors),
    ...(usage
      ? [tokensText(m.usage), costPerTrialText(m.usage), costPerSolvedText(m.usage, m.rate.passed)]
      : []),
  ]);
  const precision = precisionSentence(r.models);
  return [
    '## Models',
    '',
    ...table(usage ? [...MODEL_HEADER, ...USAGE_HEADER] : MODEL_HEADER, rows),
    ...(precision ? ['', precision] : []),
  ];
}

function navigationSection(r: Report): string[] {
  if (!r.navigation_delta.length) return [];
  const rows = r.navigation_delta.map((d) => [
    mdCell(rowName(d, r.run.agent)),
    String(d.tasks),
    `${passedText(d.hinted)} ${ciText(d.hinted.ci95)}`,
    `${passedText(d.navigation)} ${ciText(d.navigation.ci95)}`,
    `${ppText(d.delta.estimate)} ${ppInterval(d.delta)}`,
    d.mean_delta === null ? '—' : `${d.mean_delta >= 0 ? '+' : ''}${d.mean_delta.toFixed(2)}`,
    d.distinguishable ? '**distinguishable**' : 'not distinguishable from noise',
  ]);
  return [
    '## Navigation delta (hinted − navigation)',
    '',
    ...table(
      ['model', 'tasks', 'hinted', 'navigation', 'Δ pass rate [95% CI]', 'Δ mean score', 'finding'],
      rows,
    ),
    '',
    'On the tasks each model ran in both modes. Δ interval: Newcombe; a finding needs the two Wilson intervals not to overlap (the stricter test).',
  ];
}

function harnessSection(r: Report): string[] {
  if (!r.harness_delta.length) return [];
  return [
    '## Harness delta (harness − bare)',
    '',
    ...table(
      HARNESS_HEADER,
      harnessRows(r.harness_delta).map((row) => row.map(mdCell)),
    ),
    '',
    HARNESS_SENTENCE,
  ];
}

function taxonomySection(r: Report): string[] {
  const t = r.taxonomy;
  const rows = t.labels.map((l) => [l.label, l.level, String(l.count), pct(l.share)]);
  if (t.errors) rows.push(['_infra error_ (not a label)', '—', String(t.errors), '—']);
  return [
    '## Failure taxonomy',
    '',
    ...table(['label', 'confidence level', 'trials', `share of ${t.scored} scored`], rows),
    '',
    mdCell(auditSentence(r.audit)),
    ...(t.harbor ? ['', mdCell(t.harbor.note)] : []),
  ];
}

function readingSection(r: Report): string[] {
  const g = r.reading;
  if (!g.models.length) return [];
  const rows = g.models.map((m) => [
    mdCell(rowName(m, r.run.agent)),
    m.mode,
    String(m.trials),
    m.files_read_mean === null ? '—' : `${m.files_read_mean.toFixed(1)} / ${m.files_read_max}`,
    m.required_read_mean === null ? '—' : pct(m.required_read_mean),
    String(m.insufficient_context_read),
  ]);
  const lines = [
    '## Context reading',
    '',
    `Files the agent read per scored trial (its read_file calls). insufficient_context_read is a navigation run that changed none of the required files, whatever it read (whitepaper §9.1, rule 2); one that read at least ${g.threshold} files is also flagged context_explosion. Trials of agents that report no tool calls are left out of the means.`,
    '',
    ...table(
      [
        'model',
        'mode',
        'trials with tool calls',
        'files read (mean / max)',
        'required files read (mean share)',
        'insufficient_context_read',
      ],
      rows,
      MAX_BREAKDOWN_ROWS,
    ),
  ];
  if (g.examples.length)
    lines.push(
      '',
      ...g.examples
        .slice(0, MAX_ERROR_LINES)
        .map(
          (e) =>
            `- ${mdCell(e.task_id)} · ${mdCell(rowName(e, r.run.agent))} · ${e.mode} #${e.attempt}: ${e.text}`,
        ),
    );
  if (g.labelled > Math.min(g.examples.length, MAX_ERROR_LINES))
    lines.push(
      `- … ${plural(g.labelled - Math.min(g.examples.length, MAX_ERROR_LINES), 'other trial')}`,
    );
  return lines;
}

function breakdownSections(r: Report): string[] {
  const out: string[] = [];
  const single: string[] = [];
  for (const b of r.breakdowns) {
    if (b.dimension === 'model') continue; // the Models table
    const title = DIMENSION_TITLES[b.dimension];
    const values = new Set(b.rows.map((x) => x.value));
    if (values.size < 2) {
      // One value: the table would repeat the Models table.
      if (b.dimension !== 'provider') single.push(`${title}: ${mdCell([...values].join(''))}`);
      continue;
    }
    const rows = b.rows.map((x) => [
      mdCell(breakdownValue(x)),
      x.mode,
      passedText(x.rate),
      ciText(x.rate.ci95),
      score2(x.rate.mean_score),
      String(x.rate.errors),
    ]);
    out.push(
      `### By ${title}`,
      '',
      ...table(
        [b.dimension.replace('_', ' '), 'mode', 'passed', '95% CI', 'mean', 'errors'],
        rows,
        MAX_BREAKDOWN_ROWS,
      ),
      '',
    );
  }
  if (!out.length && !single.length) return [];
  const notes = ['A polyglot task counts under each of its languages.'];
  if (single.length) notes.push(`Same for every trial: ${single.join('; ')}.`);
  return ['## Breakdowns', '', notes.join(' '), '', ...out.slice(0, -1)];
}

function contaminationSection(r: Report): string[] {
  const c = r.contamination;
  if (!c.models.length) return [];
  const known = c.models.filter((m) => m.cutoff);
  const unknown = c.models.filter((m) => !m.cutoff);
  const lines = ['## Contamination', ''];
  for (const m of known)
    lines.push(
      `- ${mdCell(`${m.provider}/${m.model}`)} (cutoff ${m.cutoff}): ${m.pre_cutoff_cells} of ${plural(m.cells, 'cell')} on tasks merged before the cutoff${m.pre_cutoff_cells ? ' (marked in the matrix)' : ''}`,
    );
  if (unknown.length)
    lines.push(
      `- no knowledge cutoff listed for ${unknown.map((m) => mdCell(`${m.provider}/${m.model}`)).join(', ')}: not checked`,
    );
  lines.push('', `Cutoffs from \`${c.cutoffs_file ?? '(none)'}\` (--cutoffs FILE).`);
  return lines;
}

const unverified = (c: MatrixCell) => c.evidence !== 'passing' && c.evidence !== 'unknown';

function evidenceSection(r: Report): string[] {
  const e = r.evidence;
  if (!e.unverified.length) return [];
  return [
    '## Tasks without passing gate evidence',
    '',
    `${plural(e.unverified.length, 'task')} (${plural(e.trials, 'trial')}) ran without passing admission-gate evidence for their current content, so a score there may reflect a broken task rather than the agent (marked in the matrix; \`nanobench validate --record-evidence\` records it):`,
    '',
    ...e.unverified.map((u) => `- ${mdCell(u.task_id)}: ${EVIDENCE_WORDS[u.status] ?? u.status}`),
  ];
}

function phasesSection(r: Report): string[] {
  const s = r.phases;
  if (!s) return [];
  return [
    '## Where the time went',
    '',
    `Mean of ${plural(s.trials, 'timed trial')}: ${(s.mean_total_ms / 1000).toFixed(1)} s; workspaces: ${provisionText(s)}.`,
    '',
    `| ${s.phases.map((p) => p.phase).join(' | ')} |`,
    `|${s.phases.map(() => '---:').join('|')}|`,
    `| ${s.phases.map((p) => `${p.mean_ms} ms (${pct(p.share)})`).join(' | ')} |`,
  ];
}

function lifecycleSection(r: Report): string[] {
  return lifecycleLines(r).flatMap((sec, i) => [
    ...(i ? [''] : []),
    `## ${sec.title}`,
    '',
    sec.text,
    '',
    ...sec.items.map((x) => `- ${mdCell(x)}`),
  ]);
}

function errorsSection(r: Report): string[] {
  if (!r.errors.count) return [];
  const lines = ['## Infra errors (excluded from every rate)', ''];
  const code = (s: string) => `\`${s.replace(/`/g, "'").replace(/\s+/g, ' ')}\``;
  for (const e of r.errors.by_cause.slice(0, MAX_ERROR_LINES))
    lines.push(
      e.cause === e.message
        ? `- ${e.count}× ${code(e.message)} (e.g. ${e.example})`
        : `- ${e.count}× **${e.cause}**: ${code(e.message)} (e.g. ${e.example})`,
    );
  const more = r.errors.by_cause.length - MAX_ERROR_LINES;
  if (more > 0) lines.push(`- … ${plural(more, 'other cause')}`);
  return lines;
}

function matrixRow(c: MatrixCell, agent: string): string {
  const labels = Object.entries(c.labels)
    .map(([l, n]) => (c.scored > 1 ? `${l} ×${n}` : l))
    .join(', ');
  const notes = [
    ...(c.contamination === 'pre_cutoff' ? [PRE_CUTOFF_MARK] : []),
    ...(c.undersampled ? [UNDERSAMPLED_MARK] : []),
    ...(unverified(c) ? [NO_EVIDENCE_MARK] : []),
  ];
  const errors = c.errors ? ` (+${plural(c.errors, 'infra error')})` : '';
  const p1 = c.pass_at_1 === null ? '—' : c.pass_at_1 ? 'pass' : 'fail';
  return `| ${mdCell(rowName(c, agent))} | ${mdCell(c.task_id)} | ${c.mode} | ${p1} | ${score2(c.mean_score)} | ${c.passed}/${c.scored}${errors} | ${ciText(c.ci95)} | ${mdCell(labels) || '—'}${marks(c, notes)} |`;
}

/** The matrix table within `budget` characters; rows past it are counted in a note. */
export function matrixMarkdown(
  cells: MatrixCell[],
  agent = '?',
  budget = Number.POSITIVE_INFINITY,
): string {
  const lines = [
    '| model | task | mode | pass@1 | mean score | passed | 95% CI | failure modes |',
    '|---|---|---|---|---|---|---|---|',
  ];
  let size = lines.join('\n').length + 200; // room for the note
  let shown = 0;
  for (const c of cells) {
    const row = matrixRow(c, agent);
    if (size + row.length + 1 > budget) break;
    lines.push(row);
    size += row.length + 1;
    shown++;
  }
  if (shown < cells.length)
    lines.push(
      '',
      `_${cells.length - shown} of ${cells.length} matrix rows not shown to fit a PR comment; the full matrix is in \`nanobench report --format html\` or \`--format json\`._`,
    );
  return `${lines.join('\n')}\n`;
}

export function renderMarkdown(r: Report, budget = MARKDOWN_BUDGET): string {
  const sections = [
    header(r),
    sandboxWarningMarkdown(r.integrity),
    modelsSection(r),
    navigationSection(r),
    harnessSection(r),
    taxonomySection(r),
    readingSection(r),
    breakdownSections(r),
    contaminationSection(r),
    evidenceSection(r),
    lifecycleSection(r),
    errorsSection(r),
    integrityMarkdown(r.integrity, mdCell),
    phasesSection(r),
  ].filter((s) => s.length);
  const head = `${sections.map((s) => s.join('\n')).join('\n\n')}\n\n## Provider matrix\n\n`;
  return head + matrixMarkdown(r.matrix, r.run.agent, budget - head.length);
}

/** Markdown for a stored run, reading task metadata and cutoffs the default way. */
export function markdownSummary(
  run: RunRecord,
  trials: TrialRecord[],
  audit?: AuditRecord,
): string {
  // Below 90% Level-4 audit agreement both Level-4 labels show as implementation_error.
  const shown = applyAudit(trials, audit?.agreement);
  return renderMarkdown(
    buildReport(run, shown, defaultReportInputs(run, undefined, auditSummary(audit))),
  );
}
