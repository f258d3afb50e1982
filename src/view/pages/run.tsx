// A run: the report's numbers (models, taxonomy, matrix: the same cells as `nanobench report`),
// filters, and the trials they select, each linking to its page. While the run is in progress
// the regions marked data-live are refreshed as trials finish.
import { basename } from 'node:path';
import type { FC } from 'hono/jsx';
import { sandboxWarning } from '../../integrity/report.js';
import {
  ciText,
  costPerSolvedText,
  costPerTrialText,
  halfWidthText,
  NO_EVIDENCE_MARK,
  NON_DET_MARK,
  PRE_CUTOFF_MARK,
  passedText,
  pct,
  plural,
  precisionSentence,
  rowName,
  score2,
  taskRateText,
  tokensText,
  UNDERSAMPLED_MARK,
} from '../../report/format.js';
import { MODEL_HEADER, RATES_SENTENCE, USAGE_HEADER } from '../../report/markdown.js';
import type { MatrixCell } from '../../report/matrix.js';
import type { TrialIndexRow } from '../../store/store.js';
import {
  FILTER_KEYS,
  type FilterKey,
  type Filters,
  filterQuery,
  INFRA_ERROR,
  labelOf,
  modelKey,
  type RunPage,
} from '../data.js';
import { Layout } from './layout.js';

/** Rows beyond these are not listed (a note says so); filters narrow them down. */
const MAX_CELLS = 2000;
const MAX_TRIALS = 2000;

export const runHref = (id: string, f: Filters = {}) =>
  `/runs/${encodeURIComponent(id)}${filterQuery(f)}`;
export const trialHref = (runId: string, id: number, f: Filters = {}) =>
  `/runs/${encodeURIComponent(runId)}/trials/${id}${filterQuery(f)}`;

const FILTER_TITLES: Record<FilterKey, string> = {
  agent: 'agent',
  model: 'model',
  task: 'task',
  mode: 'mode',
  label: 'label',
  tier: 'tier',
  language: 'language',
  flag: 'flagged',
};

function cellMarks(c: MatrixCell): string[] {
  return [
    ...(c.non_deterministic ? [NON_DET_MARK] : []),
    ...(c.contamination === 'pre_cutoff' ? [PRE_CUTOFF_MARK] : []),
    ...(c.undersampled ? [UNDERSAMPLED_MARK] : []),
    ...(c.evidence !== 'passing' && c.evidence !== 'unknown' ? [NO_EVIDENCE_MARK] : []),
  ];
}

const Cell: FC<{ c: MatrixCell; p: RunPage }> = ({ c, p }) => {
  const labels = Object.entries(c.labels)
    .map(([l, n]) => (c.scored > 1 ? `${l} ×${n}` : l))
    .join(', ');
  const cls = c.scored === 0 ? '' : c.passed === c.scored ? 'pass' : c.passed === 0 ? 'fail' : '';
  const errors = c.errors ? ` (+${plural(c.errors, 'infra error')})` : '';
  const cellFilter = {
    ...p.filters,
    ...(c.agent !== undefined && { agent: c.agent }),
    model: modelKey(c),
    task: c.task_id,
    mode: c.mode,
  };
  return (
    <tr class={cls && `cell-${cls}`}>
      <td>{rowName(c, p.report.run.agent)}</td>
      <td>{c.task_id}</td>
      <td>{c.mode}</td>
      <td class="res">{c.pass_at_1 === null ? '—' : c.pass_at_1 ? 'pass' : 'fail'}</td>
      <td class="num">{score2(c.mean_score)}</td>
      <td class="num">{`${c.passed}/${c.scored}${errors}`}</td>
      <td class="num">{ciText(c.ci95)}</td>
      <td>
        {labels || '—'}
        {cellMarks(c).map((m) => (
          <span class="mark"> {m}</span>
        ))}
      </td>
      <td>
        <a href={`${runHref(p.run.id, cellFilter)}#trials`} class="cell-link">
          {plural(c.runs, 'trial')}
        </a>
      </td>
    </tr>
  );
};

const TrialLine: FC<{ t: TrialIndexRow; p: RunPage }> = ({ t, p }) => {
  const label = labelOf(t);
  const result =
    t.status === 'error'
      ? `infra error: ${t.error_stage ? `${t.error_stage}/${t.error_code ?? 'failed'}` : t.error.slice(0, 80)}`
      : label;
  return (
    <tr data-trial-row>
      <td class="num">
        <a href={trialHref(p.run.id, t.id, p.filters)} data-nav-item>
          #{t.id}
        </a>
      </td>
      <td>{t.task_id}</td>
      <td>{rowName(t, p.report.run.agent)}</td>
      <td>{t.mode}</td>
      <td class="num">{t.attempt}</td>
      <td class={label === 'pass' ? 'pass' : label === INFRA_ERROR ? 'warn' : 'fail'}>{result}</td>
      <td class="num">{t.score === null ? '—' : t.score.toFixed(2)}</td>
      <td class="num">{t.tokens_in === null ? '—' : `${t.tokens_in} / ${t.tokens_out ?? 0}`}</td>
      <td class="num">{(t.duration_ms / 1000).toFixed(1)} s</td>
      <td>{t.flags.join(', ')}</td>
    </tr>
  );
};

const FiltersForm: FC<{ p: RunPage }> = ({ p }) => (
  <form class="filters" method="get" action={runHref(p.run.id)} id="filters">
    {FILTER_KEYS.map((k) =>
      p.options[k].length ? (
        <label>
          {FILTER_TITLES[k]}
          <select name={k} data-autosubmit>
            <option value="">all</option>
            {p.options[k].map((o) => (
              <option value={o.value} selected={p.filters[k] === o.value}>
                {o.text}
              </option>
            ))}
          </select>
        </label>
      ) : (
        ''
      ),
    )}
    <button type="submit">Filter</button>
    {Object.keys(p.filters).length ? <a href={runHref(p.run.id)}>clear filters</a> : ''}
  </form>
);

export const RunPageView: FC<{ p: RunPage }> = ({ p }) => {
  const r = p.report;
  const running = p.run.status === 'running';
  const nanocoder = r.run.agent_info.nanocoder_version;
  const warning = sandboxWarning(r.integrity);
  const usage = r.models.some((m) => m.usage.trials > 0);
  const filtered = Object.keys(p.filters).length > 0;
  const cells = p.cells.slice(0, MAX_CELLS);
  const trials = p.trials.slice(0, MAX_TRIALS);
  return (
    <Layout
      kind="run"
      title={`Run ${p.run.id}`}
      crumbs={[{ href: '/', text: 'Runs' }, { text: p.run.id }]}
      live={
        running
          ? `/runs/${encodeURIComponent(p.run.id)}/events?since=${encodeURIComponent(p.progress)}`
          : undefined
      }
    >
      <h1>Run {p.run.id}</h1>
      <p class="meta" id="run-meta" data-live>
        Agent <code>{r.run.agent}</code>
        {nanocoder ? ` · Nanocoder ${String(nanocoder)}` : ''} · status{' '}
        <span id="run-status" class={`badge ${running ? 'live' : ''}`}>
          {r.run.status}
        </span>{' '}
        · trials <span id="run-trials">{`${r.run.trials}/${r.run.plan_size}`}</span> · scored{' '}
        {r.overall.scored} · passed {passedText(r.overall)} · infra errors {r.overall.errors}{' '}
        (beside the rates, never inside) · created {r.run.created_at}
        {p.datasets.length
          ? ` · dataset ${p.datasets.map((d) => d.version ?? basename(d.path)).join(', ')}`
          : ''}
        {running ? ' ' : ''}
        {running ? <span class="badge live">live: updates as trials finish</span> : ''}
      </p>
      <p class="meta">
        Sampling: {r.sampling.summary}. {RATES_SENTENCE}
      </p>
      {warning ? (
        <p class="note">
          <strong>{warning.title}</strong> {warning.text}
        </p>
      ) : (
        ''
      )}
      {r.task_meta.note ? <p class="note">Note: {r.task_meta.note}.</p> : ''}
      {p.audit_note ? <p class="note">Note: {p.audit_note}.</p> : ''}

      <section id="models" data-live>
        <h2>Models</h2>
        <table id="models-table">
          <thead>
            <tr>
              {/* model and mode are words; the rest are numbers, aligned with their cells */}
              {MODEL_HEADER.map((h, i) => (
                <th class={i >= 2 ? 'num' : undefined}>{h}</th>
              ))}
              {usage ? USAGE_HEADER.map((h) => <th class="num">{h}</th>) : ''}
            </tr>
          </thead>
          <tbody>
            {r.models.map((m) => (
              <tr>
                <td>
                  <a
                    href={runHref(p.run.id, {
                      ...(m.agent !== undefined && { agent: m.agent }),
                      model: modelKey(m),
                      mode: m.mode,
                    })}
                  >
                    {rowName(m, r.run.agent)}
                  </a>
                  {m.rate.non_deterministic ? <span class="mark"> {NON_DET_MARK}</span> : ''}
                </td>
                <td>{m.mode}</td>
                <td class="num">{m.tasks.tasks}</td>
                <td class="num">{taskRateText(m.tasks)}</td>
                <td class="num">{halfWidthText(m.tasks)}</td>
                <td class="num">{passedText(m.rate)}</td>
                <td class="num">{score2(m.tasks.mean_score)}</td>
                <td class="num">{m.rate.errors}</td>
                {usage ? <td class="num">{tokensText(m.usage)}</td> : ''}
                {usage ? <td class="num">{costPerTrialText(m.usage)}</td> : ''}
                {usage ? <td class="num">{costPerSolvedText(m.usage, m.rate.passed)}</td> : ''}
              </tr>
            ))}
          </tbody>
        </table>
        {precisionSentence(r.models) ? <p class="meta">{precisionSentence(r.models)}</p> : ''}
      </section>

      <section id="taxonomy" data-live>
        <h2>Failure taxonomy</h2>
        <table id="taxonomy-table">
          <thead>
            <tr>
              <th>label</th>
              <th>confidence level</th>
              <th class="num">trials</th>
              <th class="num">share of {r.taxonomy.scored} scored</th>
            </tr>
          </thead>
          <tbody>
            {r.taxonomy.labels.map((l) => (
              <tr>
                <td>
                  <a href={`${runHref(p.run.id, { label: l.label })}#trials`}>{l.label}</a>
                </td>
                <td>{l.level}</td>
                <td class="num">{l.count}</td>
                <td class="num">{pct(l.share)}</td>
              </tr>
            ))}
            {r.taxonomy.errors ? (
              <tr>
                <td>
                  <a href={`${runHref(p.run.id, { label: INFRA_ERROR })}#trials`}>infra error</a>{' '}
                  (not a label)
                </td>
                <td>—</td>
                <td class="num">{r.taxonomy.errors}</td>
                <td class="num">—</td>
              </tr>
            ) : (
              ''
            )}
          </tbody>
        </table>
        {r.errors.by_cause.length ? (
          <>
            <h3>Infra errors by cause (excluded from every rate)</h3>
            <table id="errors-table">
              <thead>
                <tr>
                  <th class="num">trials</th>
                  <th>stage/code</th>
                  <th>first message</th>
                  <th>example</th>
                </tr>
              </thead>
              <tbody>
                {r.errors.by_cause.map((e) => (
                  <tr>
                    <td class="num">{e.count}</td>
                    <td>{e.cause === e.message ? '—' : e.cause}</td>
                    <td>
                      <code>{e.message}</code>
                    </td>
                    <td>{e.example}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </>
        ) : (
          ''
        )}
      </section>

      <section id="filter-section">
        <h2>Filters</h2>
        <FiltersForm p={p} />
      </section>

      <section id="matrix-section" data-live>
        <h2>Provider matrix</h2>
        {filtered ? (
          <p class="meta">
            {p.cells.length} of {r.matrix.length} cells have a trial matching the filters; each
            cell's numbers are the whole cell's, as in the report.
          </p>
        ) : (
          ''
        )}
        <table id="matrix">
          <thead>
            <tr>
              <th>model</th>
              <th>task</th>
              <th>mode</th>
              <th>pass@1</th>
              <th class="num">mean score</th>
              <th class="num">passed</th>
              <th class="num">95% CI</th>
              <th>failure modes</th>
              <th>trials</th>
            </tr>
          </thead>
          <tbody>
            {cells.map((c) => (
              <Cell c={c} p={p} />
            ))}
          </tbody>
        </table>
        {p.cells.length > cells.length ? (
          <p class="note">{p.cells.length - cells.length} more cells: narrow the filters.</p>
        ) : (
          ''
        )}
      </section>

      <section id="trials" data-live>
        <h2>
          Trials{' '}
          <span class="meta">
            {filtered ? `${p.trials.length} of ${p.total_trials}` : p.total_trials}
          </span>
        </h2>
        <table id="trials-table">
          <thead>
            <tr>
              <th class="num">trial</th>
              <th>task</th>
              <th>model</th>
              <th>mode</th>
              <th class="num">#</th>
              <th>result</th>
              <th class="num">score</th>
              <th class="num">tokens in / out</th>
              <th class="num">time</th>
              <th>flags</th>
            </tr>
          </thead>
          <tbody>
            {trials.map((t) => (
              <TrialLine t={t} p={p} />
            ))}
          </tbody>
        </table>
        {p.trials.length > trials.length ? (
          <p class="note">{p.trials.length - trials.length} more trials: narrow the filters.</p>
        ) : (
          ''
        )}
        {p.trials.length === 0 ? <p class="meta">No trial matches the filters.</p> : ''}
      </section>
    </Layout>
  );
};
