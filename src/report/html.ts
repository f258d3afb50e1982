// The HTML report: one self-contained file. Inline CSS, charts as inline SVG rendered on the
// server, no script, and a Content-Security-Policy that forbids loading anything, so the page
// opens offline and cannot phone home.
import { auditSentence } from '../audit/policy.js';
import { sandboxWarning } from '../integrity/report.js';
import { breakdownValue } from './breakdown.js';
import { navigationChart, scoreChart, taxonomyChart } from './charts.js';
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
import { lifecycleLines } from './lifecycle.js';
import { MODEL_HEADER, RATES_SENTENCE, USAGE_HEADER } from './markdown.js';
import type { MatrixCell } from './matrix.js';
import type { Report } from './model.js';
import { provisionText } from './phases.js';

/** Rows beyond this are left out of the HTML matrix (with a note); JSON has them all. */
const MAX_MATRIX_ROWS = 5000;

export const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:#222;margin:0;background:#fafafa}
main{max-width:1000px;margin:0 auto;padding:16px 24px 48px;background:#fff}
h1{font-size:22px;margin:8px 0}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
h3{font-size:15px;margin:18px 0 6px}
.meta{color:#555}.note{background:#fff8e1;border-left:4px solid #f2b600;padding:6px 10px}
nav a{margin-right:12px;color:#2b5d8a}
table{border-collapse:collapse;width:100%;margin:6px 0 10px;font-size:13px}
th,td{border:1px solid #e2e2e2;padding:4px 6px;text-align:left;vertical-align:top}
th{background:#f3f5f7}td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
tr.pass td.res{color:#2e7d32}tr.fail td.res{color:#c62828}
.mark{color:#b26a00;white-space:nowrap}.finding{font-weight:600}
figure{margin:8px 0;overflow-x:auto}figure svg{display:block;max-width:100%;height:auto}
figcaption{color:#555;font-size:12px}
`;

const td = (s: string, cls = '') => `<td${cls ? ` class="${cls}"` : ''}>${s}</td>`;
const num = (s: string) => td(esc(s), 'num');

function tableHtml(id: string, header: string[], rows: string[], caption = ''): string {
  return `<table id="${id}">${caption ? `<caption>${esc(caption)}</caption>` : ''}<thead><tr>${header
    .map((h) => `<th>${esc(h)}</th>`)
    .join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

const mark = (s: string) => ` <span class="mark">${esc(s)}</span>`;

function modelsSection(r: Report): string {
  const agent = r.run.agent;
  const usage = r.models.some((m) => m.usage.trials > 0);
  const rows = r.models.map(
    (m) =>
      `<tr>${td(esc(rowName(m, agent)) + (m.rate.non_deterministic ? mark(NON_DET_MARK) : ''))}${td(esc(m.mode))}${num(String(m.tasks.tasks))}${num(taskRateText(m.tasks))}${num(halfWidthText(m.tasks))}${num(passedText(m.rate))}${num(score2(m.tasks.mean_score))}${num(String(m.rate.errors))}${usage ? num(tokensText(m.usage)) + num(costPerTrialText(m.usage)) + num(costPerSolvedText(m.usage, m.rate.passed)) : ''}</tr>`,
  );
  const precision = precisionSentence(r.models);
  return `<section id="models"><h2>Models</h2>
<figure>${scoreChart(r.models, agent)}<figcaption>Pass rate per model and mode, each task once; whiskers: 95% interval over tasks (a task's runs are one cluster), with the task count.</figcaption></figure>
${tableHtml('models-table', usage ? [...MODEL_HEADER, ...USAGE_HEADER] : MODEL_HEADER, rows)}${precision ? `<p>${esc(precision)}</p>` : ''}</section>
`;
}

function navigationSection(r: Report): string {
  if (!r.navigation_delta.length) return '';
  const agent = r.run.agent;
  const rows = r.navigation_delta.map(
    (d) =>
      `<tr>${td(esc(rowName(d, agent)))}${num(String(d.tasks))}${num(`${passedText(d.hinted)} ${ciText(d.hinted.ci95)}`)}${num(`${passedText(d.navigation)} ${ciText(d.navigation.ci95)}`)}${num(`${ppText(d.delta.estimate)} ${ppInterval(d.delta)}`)}${num(d.mean_delta === null ? '—' : d.mean_delta.toFixed(2))}${td(d.distinguishable ? '<span class="finding">distinguishable</span>' : 'not distinguishable from noise')}</tr>`,
  );
  return `<section id="navigation"><h2>Navigation delta (hinted − navigation)</h2>
<figure>${navigationChart(r.navigation_delta, agent)}<figcaption>Positive: the model passes less often when it must find the files itself. Whiskers: 95% interval on the difference (Newcombe). A finding needs the two Wilson intervals not to overlap, a stricter test, so a whisker clear of 0 can still be called noise.</figcaption></figure>
${tableHtml('navigation-table', ['model', 'tasks', 'hinted', 'navigation', 'Δ pass rate [95% CI]', 'Δ mean score', 'finding'], rows)}</section>`;
}

function harnessSection(r: Report): string {
  if (!r.harness_delta.length) return '';
  const rows = harnessRows(r.harness_delta).map(
    (row) => `<tr>${row.map((c, i) => (i < 2 || i > 7 ? td(esc(c)) : num(esc(c)))).join('')}</tr>`,
  );
  return `<section id="harness"><h2>Harness delta (harness − bare)</h2><p>${esc(HARNESS_SENTENCE)}</p>
${tableHtml('harness-table', HARNESS_HEADER, rows)}</section>`;
}

function taxonomySection(r: Report): string {
  const t = r.taxonomy;
  const rows = t.labels.map(
    (l) =>
      `<tr>${td(esc(l.label))}${td(esc(l.level))}${num(String(l.count))}${num(pct(l.share))}</tr>`,
  );
  if (t.errors)
    rows.push(
      `<tr>${td('<em>infra error</em> (not a label)')}${td('—')}${num(String(t.errors))}${num('—')}</tr>`,
    );
  const chart = t.labels.length
    ? `<figure>${taxonomyChart(t, r.run.agent)}<figcaption>Share of each label among scored trials.</figcaption></figure>`
    : '';
  const audit = `<p id="audit" class="${r.audit?.collapsed ? 'note' : 'meta'}">${esc(auditSentence(r.audit))}</p>${t.harbor ? `<p class="meta">${esc(t.harbor.note)}</p>` : ''}`;
  return `<section id="taxonomy"><h2>Failure taxonomy</h2>${chart}
${tableHtml('taxonomy-table', ['label', 'confidence level', 'trials', `share of ${t.scored} scored`], rows)}${audit}</section>`;
}

function readingSection(r: Report): string {
  const g = r.reading;
  if (!g.models.length) return '';
  const rows = g.models.map(
    (m) =>
      `<tr>${td(esc(rowName(m, r.run.agent)))}${td(esc(m.mode))}${num(String(m.trials))}${num(m.files_read_mean === null ? '—' : `${m.files_read_mean.toFixed(1)} / ${m.files_read_max}`)}${num(m.required_read_mean === null ? '—' : pct(m.required_read_mean))}${num(String(m.insufficient_context_read))}</tr>`,
  );
  const examples = g.examples.map(
    (e) =>
      `<li>${esc(`${e.task_id} · ${rowName(e, r.run.agent)} · ${e.mode} #${e.attempt}: ${e.text}`)}</li>`,
  );
  return `<section id="reading"><h2>Context reading</h2><p>Files the agent read per scored trial (its read_file calls). insufficient_context_read is a navigation run that changed none of the required files, whatever it read (whitepaper §9.1, rule 2); one that read at least ${g.threshold} files is also flagged context_explosion.</p>
${tableHtml('reading-table', ['model', 'mode', 'trials with tool calls', 'files read (mean / max)', 'required files read (mean share)', 'insufficient_context_read'], rows)}${examples.length ? `<ul>${examples.join('')}</ul>` : ''}</section>`;
}

function breakdownSection(r: Report): string {
  const parts = r.breakdowns
    .filter((b) => b.dimension !== 'model')
    .map((b) => {
      const title = DIMENSION_TITLES[b.dimension];
      const rows = b.rows.map(
        (x) =>
          `<tr>${td(esc(breakdownValue(x)))}${td(esc(x.mode))}${num(passedText(x.rate))}${num(ciText(x.rate.ci95))}${num(score2(x.rate.mean_score))}${num(String(x.rate.errors))}</tr>`,
      );
      return `<h3>By ${esc(title)}</h3>${tableHtml(`breakdown-${b.dimension}`, [title, 'mode', 'passed', '95% CI', 'mean', 'errors'], rows)}`;
    });
  return `<section id="breakdowns"><h2>Breakdowns</h2><p>A polyglot task counts under each of its languages.</p>${parts.join('\n')}</section>`;
}

function contaminationSection(r: Report): string {
  const c = r.contamination;
  if (!c.models.length) return '';
  const items = c.models.map((m) =>
    m.cutoff
      ? `<li>${esc(`${m.provider}/${m.model}`)} (cutoff ${esc(m.cutoff)}): ${m.pre_cutoff_cells} of ${plural(m.cells, 'cell')} on tasks merged before the cutoff</li>`
      : `<li>${esc(`${m.provider}/${m.model}`)}: no knowledge cutoff listed; not checked</li>`,
  );
  return `<section id="contamination"><h2>Contamination</h2><ul>${items.join('')}</ul><p class="meta">Cutoffs from <code>${esc(c.cutoffs_file ?? '(none)')}</code>.</p></section>`;
}

function evidenceSection(r: Report): string {
  const e = r.evidence;
  if (!e.unverified.length) return '';
  const items = e.unverified.map(
    (u) => `<li>${esc(u.task_id)}: ${esc(EVIDENCE_WORDS[u.status] ?? u.status)}</li>`,
  );
  return `<section id="evidence"><h2>Tasks without passing gate evidence</h2><p>${plural(e.unverified.length, 'task')} (${plural(e.trials, 'trial')}) ran without passing admission-gate evidence for their current content, so a score there may reflect a broken task rather than the agent (marked in the matrix).</p><ul>${items.join('')}</ul></section>`;
}

function lifecycleSection(r: Report): string {
  return lifecycleLines(r)
    .map(
      (sec) =>
        `<section id="${sec.title.toLowerCase().replace(/ /g, '-')}"><h2>${esc(sec.title)}</h2><p>${esc(sec.text)}</p><ul>${sec.items.map((x) => `<li>${esc(x)}</li>`).join('')}</ul></section>`,
    )
    .join('');
}

const MAX_FLAGGED_ROWS = 500;

/** Above everything: a run without a sandbox is not tamper-proof. */
function sandboxWarningHtml(r: Report): string {
  const w = sandboxWarning(r.integrity);
  if (!w) return '';
  const text = esc(w.text).replace(/`([^`]+)`/g, '<code>$1</code>');
  return `<p class="note"><strong>${esc(w.title)}</strong> ${text}</p>`;
}

/** The flagged trials, after the scores they qualify. */
function integritySection(r: Report): string {
  const s = r.integrity;
  if (!s.flagged.length) return '';
  const rows = s.flagged
    .slice(0, MAX_FLAGGED_ROWS)
    .map(
      (t) =>
        `<tr>${td(esc(t.task_id))}${td(esc(rowName(t, r.run.agent)))}${td(esc(t.mode))}${num(String(t.attempt))}${td(esc(t.label ?? '—'))}${num(t.score === null ? '—' : String(t.score))}${td(esc(t.flags.join(', ')))}</tr>`,
    );
  const more = s.flagged.length - rows.length;
  return `<section id="integrity"><h2>Integrity</h2><p>${s.flagged.length} trial(s) touched what they should not have (integrity mode: ${esc(s.integrity_mode ?? 'flag')}; hardening undid it before grading).</p>
${tableHtml('integrity-table', ['task', 'model', 'mode', '#', 'label', 'score', 'flags'], rows)}${more ? `<p class="note">${more} more not shown.</p>` : ''}</section>`;
}

function errorsSection(r: Report): string {
  if (!r.errors.count) return '';
  const rows = r.errors.by_cause.map(
    (e) =>
      `<tr>${num(String(e.count))}${td(e.cause === e.message ? '—' : esc(e.cause))}${td(`<code>${esc(e.message)}</code>`)}${td(esc(e.example))}</tr>`,
  );
  return `<section id="errors"><h2>Infra errors (excluded from every rate)</h2>${tableHtml('errors-table', ['trials', 'stage/code', 'first message', 'example'], rows)}</section>`;
}

function matrixRow(c: MatrixCell, agent: string): string {
  const labels = Object.entries(c.labels)
    .map(([l, n]) => (c.scored > 1 ? `${l} ×${n}` : l))
    .join(', ');
  const marks = [
    ...(c.non_deterministic ? [NON_DET_MARK] : []),
    ...(c.contamination === 'pre_cutoff' ? [PRE_CUTOFF_MARK] : []),
    ...(c.undersampled ? [UNDERSAMPLED_MARK] : []),
    ...(c.evidence !== 'passing' && c.evidence !== 'unknown' ? [NO_EVIDENCE_MARK] : []),
  ];
  const cls = c.scored === 0 ? '' : c.passed === c.scored ? 'pass' : c.passed === 0 ? 'fail' : '';
  const errors = c.errors ? ` (+${plural(c.errors, 'infra error')})` : '';
  return `<tr class="${cls}">${td(esc(rowName(c, agent)))}${td(esc(c.task_id))}${td(esc(c.mode))}${td(c.pass_at_1 === null ? '—' : c.pass_at_1 ? 'pass' : 'fail', 'res')}${num(score2(c.mean_score))}${num(`${c.passed}/${c.scored}${errors}`)}${num(ciText(c.ci95))}${td(esc(labels || '—') + marks.map(mark).join(''))}</tr>`;
}

function phasesSection(r: Report): string {
  const s = r.phases;
  if (!s) return '';
  const row = s.phases.map((p) => num(`${p.mean_ms} ms (${pct(p.share)})`)).join('');
  return `<section id="phases"><h2>Where the time went</h2><p>Mean of ${plural(s.trials, 'timed trial')}: ${(s.mean_total_ms / 1000).toFixed(1)} s; workspaces: ${esc(provisionText(s))}.</p>${tableHtml(
    'phases-table',
    s.phases.map((p) => p.phase),
    [`<tr>${row}</tr>`],
  )}</section>`;
}

function matrixSection(r: Report): string {
  const shown = r.matrix.slice(0, MAX_MATRIX_ROWS);
  const more = r.matrix.length - shown.length;
  return `<section id="matrix-section"><h2>Provider matrix</h2>
${tableHtml(
  'matrix',
  ['model', 'task', 'mode', 'pass@1', 'mean score', 'passed', '95% CI', 'failure modes'],
  shown.map((c) => matrixRow(c, r.run.agent)),
)}
${more ? `<p class="note">${more} more rows not shown; the full matrix is in <code>--format json</code>.</p>` : ''}</section>`;
}

export function renderHtml(r: Report): string {
  const info = r.run.agent_info;
  const nanocoder = info.nanocoder_version
    ? ` · Nanocoder ${esc(String(info.nanocoder_version))}`
    : '';
  const sections = [
    modelsSection(r),
    navigationSection(r),
    harnessSection(r),
    taxonomySection(r),
    readingSection(r),
    breakdownSection(r),
    contaminationSection(r),
    evidenceSection(r),
    lifecycleSection(r),
    errorsSection(r),
    integritySection(r),
    phasesSection(r),
    matrixSection(r),
  ].filter(Boolean);
  const ids = [...sections.join('').matchAll(/<section id="([^"]+)"><h2>([^<]+)</g)];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>NanoBench run ${esc(r.run.id)}</title>
<style>${CSS}</style></head>
<body><main>
<h1>NanoBench run ${esc(r.run.id)}</h1>
<p class="meta">Agent <code>${esc(r.run.agent)}</code>${nanocoder} · status ${esc(r.run.status)} · trials ${r.run.trials}/${r.run.plan_size} · scored ${r.overall.scored} · infra errors ${r.overall.errors} (beside the rates, never inside) · created ${esc(r.run.created_at)}</p>
<p>Sampling: ${esc(r.sampling.summary)}.${r.sampling.undersampled_cells ? ` ${plural(r.sampling.undersampled_cells, 'tier 3-4 cell')} below 5 scored runs (marked <em>undersampled</em>).` : ''} ${esc(RATES_SENTENCE)}</p>
${sandboxWarningHtml(r)}
${r.task_meta.note ? `<p class="note">Note: ${esc(r.task_meta.note)}.</p>` : ''}
<nav>${ids.map(([, id, title]) => `<a href="#${id}">${title}</a>`).join('')}</nav>
${sections.join('\n')}
<footer class="meta"><p>Generated by NanoBench. Self-contained: no scripts, no external resources.</p></footer>
</main></body></html>
`;
}
