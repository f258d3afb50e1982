// The runs page: every run in the store, newest first, and a form to compare two of them.
import type { FC } from 'hono/jsx';
import { ciText, passedText } from '../../report/format.js';
import type { RunRow } from '../data.js';
import { Layout } from './layout.js';

const RunLine: FC<{ r: RunRow }> = ({ r }) => {
  const t = r.tally;
  const running = r.run.status === 'running';
  // The id as URLs carry it: NAME:RUNID for a run of another database than the first.
  const ref = r.ref ?? r.run.id;
  return (
    <tr data-run={ref}>
      <td>
        <input type="radio" name="base" value={ref} aria-label={`base ${ref}`} />
      </td>
      <td>
        <input type="radio" name="candidate" value={ref} aria-label={`candidate ${ref}`} />
      </td>
      <td class="nowrap">
        <a href={`/runs/${encodeURIComponent(ref)}`} data-nav-item>
          {r.run.id}
        </a>
      </td>
      {r.db !== undefined ? (
        <td class="nowrap">
          <code>{r.db}</code>
        </td>
      ) : (
        ''
      )}
      <td class="nowrap" title={r.run.created_at}>
        {r.run.created_at.slice(0, 16).replace('T', ' ')}
      </td>
      <td>
        <code>{r.agent}</code>
      </td>
      <td>{r.nanocoder ?? '—'}</td>
      <td>{r.models.join(', ') || '—'}</td>
      <td>{r.modes.join(', ')}</td>
      <td>
        {r.datasets.map((d) => (
          <div title={d.path}>
            {d.version ?? d.path.split('/').pop()}
            {d.version && !d.recorded ? <span class="mark"> (on disk now)</span> : ''}
          </div>
        ))}
      </td>
      <td>{r.sandbox ?? '—'}</td>
      <td>
        <span class={`badge ${running ? 'live' : r.run.status === 'finished' ? '' : 'warn'}`}>
          {r.run.status}
        </span>
      </td>
      <td class="num">
        {t.trials}/{r.run.plan_size}
      </td>
      <td class="num">{passedText(t)}</td>
      <td class="num">{t.scored ? ciText(r.ci95) : '—'}</td>
      <td class="num">{t.errors}</td>
    </tr>
  );
};

export const RunsPage: FC<{ rows: RunRow[]; db: string }> = ({ rows, db }) => (
  <Layout kind="runs" title="Runs" crumbs={[{ text: 'Runs' }]}>
    <h1>Runs</h1>
    <p class="meta">
      {rows.length} run{rows.length === 1 ? '' : 's'} in <code>{db}</code>, newest first. Pass rate:
      k/n over scored trials with a 95% Wilson interval; infra errors beside it, never inside.{' '}
      <a href="/leaderboard" id="leaderboard-link">
        Leaderboard
      </a>
      : which model does best, ranked only as far as the data separate them.
    </p>
    <section>
      <form action="/compare" method="get" id="compare-form">
        <table id="runs">
          <thead>
            <tr>
              <th title="the reference run">base</th>
              <th title="the run under test">candidate</th>
              <th>run</th>
              {rows.some((r) => r.db !== undefined) ? <th>database</th> : ''}
              <th>created</th>
              <th>agent</th>
              <th>Nanocoder</th>
              <th>models</th>
              <th>modes</th>
              <th>dataset</th>
              <th>sandbox</th>
              <th>status</th>
              <th class="num">trials</th>
              <th class="num">passed</th>
              <th class="num">95% CI</th>
              <th class="num">infra errors</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <RunLine r={r} />
            ))}
          </tbody>
        </table>
        {rows.length > 1 ? (
          <p>
            <button type="submit">Compare base → candidate</button>{' '}
            <span class="meta">the same verdicts as nanobench compare</span>
          </p>
        ) : (
          ''
        )}
      </form>
    </section>
  </Layout>
);
