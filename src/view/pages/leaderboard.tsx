// The leaderboard as a table: the viewer's page (rows link to their runs and cells) and, without
// links, the self-contained HTML of `nanobench leaderboard --format html`. Same words as the
// markdown (src/report/leaderboard-markdown.ts).
import type { FC } from 'hono/jsx';
import type { Leaderboard, LeaderboardRow } from '../../report/leaderboard.js';
import {
  belowText,
  coverageText,
  errorsText,
  kOfNText,
  labelsText,
  meanScoreText,
  passAt1Text,
  rankText,
  rowName,
  separationText,
  tokensText,
  usdText,
} from '../../report/leaderboard-markdown.js';
import { STYLE } from '../style.js';
import { Layout, page } from './layout.js';

/** Where a row's run links point (the viewer), or no links (a standalone file). */
type Linker = ((row: LeaderboardRow, run: { db: string; run_id: string }) => string) | null;

const NUMERIC = [
  'pass@1 [95% CI]',
  'mean score [95% CI]',
  'k/N',
  'infra errors',
  'tokens/trial',
  'cost/trial',
  'tokens/solved',
  'cost/solved',
  'tasks',
];

const Row: FC<{ r: LeaderboardRow; link: Linker }> = ({ r, link }) => (
  <tr data-row={rowName(r)} class={r.tied ? 'tied' : ''}>
    <td class="num">{rankText(r)}</td>
    <td class="nowrap">
      <code>{rowName(r)}</code>
    </td>
    <td>{r.nanocoder_version ?? '—'}</td>
    <td class="num">{passAt1Text(r)}</td>
    <td class="num">{meanScoreText(r)}</td>
    <td class="num">{kOfNText(r)}</td>
    <td class="num">{errorsText(r)}</td>
    <td class="num">{tokensText(r.usage.tokens_per_trial)}</td>
    <td class="num">{usdText(r.usage.cost_per_trial_usd)}</td>
    <td class="num">{tokensText(r.usage.tokens_per_solved)}</td>
    <td class="num">{usdText(r.usage.cost_per_solved_usd)}</td>
    <td>{labelsText(r)}</td>
    <td class="num">{coverageText(r)}</td>
    <td class="nowrap">
      {r.runs.map((x) =>
        link ? (
          <div>
            {/* the id's random suffix keeps the table on the screen; the full id is its title */}
            <a href={link(r, x)} title={x.run_id}>
              {x.run_id.split('-').pop()}
            </a>
          </div>
        ) : (
          <div title={x.run_id}>{x.run_id.split('-').pop()}</div>
        ),
      )}
    </td>
  </tr>
);

export const LeaderboardTable: FC<{ b: Leaderboard; link: Linker }> = ({ b, link }) => (
  <div>
    <p class="meta">
      {b.runs.length} run{b.runs.length === 1 ? '' : 's'}
      {b.dataset_tasks === null ? '' : `, ${b.dataset_tasks} tasks in the dataset version`}. Ranked
      by pass@1 counted per task (each task once), 95% interval over tasks; a row's rank is one more
      than the rows above it that are better beyond noise, so rows the data cannot separate share a
      rank (=): each row is compared with every row above it on the tasks both ran (paired sign-flip
      test, Holm-corrected over the pairs, family-wise α {b.alpha}; under six shared tasks the
      overlap of their 95% intervals decides). Infra errors beside the rates, never inside. Per
      solved task: all the row's usage divided by its passing trials.
    </p>
    {b.rows.length ? (
      <table id="leaderboard">
        <thead>
          <tr>
            <th class="num">rank</th>
            <th>model</th>
            <th>Nanocoder</th>
            {NUMERIC.slice(0, 8).map((h) => (
              <th class="num">{h}</th>
            ))}
            <th>top failures</th>
            <th class="num">tasks</th>
            <th>runs</th>
          </tr>
        </thead>
        <tbody>
          {b.rows.map((r) => (
            <Row r={r} link={link} />
          ))}
        </tbody>
      </table>
    ) : (
      <p class="note">No trials stored for this dataset version and mode.</p>
    )}
    {b.rows.length > 1 ? (
      <div>
        <h3>Each row against the one above</h3>
        <ul id="separations">
          {b.rows.slice(1).map((r, i) => (
            <li>
              {rankText(r)} <code>{rowName(r)}</code> vs <code>{rowName(b.rows[i])}</code>:{' '}
              {separationText(r.versus_above!)}
              {belowText(r, b.rows[i])}
            </li>
          ))}
        </ul>
      </div>
    ) : (
      ''
    )}
  </div>
);

/** The viewer's page, with a picker for the dataset version and the mode. */
export const LeaderboardPage: FC<{
  b: Leaderboard;
  datasets: string[];
  notes: string[];
  /** A run's id as the viewer's URLs carry it (DB:RUNID outside its first database). */
  refOf?: (db: string, runId: string) => string;
}> = ({ b, datasets, notes, refOf }) => (
  <Layout title="Leaderboard" crumbs={[{ href: '/', text: 'Runs' }, { text: 'Leaderboard' }]}>
    <h1>
      Leaderboard: {b.dataset}, {b.mode} mode
    </h1>
    <form class="filters" action="/leaderboard" method="get">
      <label>
        dataset
        <select name="dataset">
          {datasets.map((d) => (
            <option value={d} selected={d === b.dataset}>
              {d}
            </option>
          ))}
        </select>
      </label>
      <label>
        mode
        <select name="mode">
          {['hinted', 'navigation'].map((m) => (
            <option value={m} selected={m === b.mode}>
              {m}
            </option>
          ))}
        </select>
      </label>
      <button type="submit">Show</button>
    </form>
    {notes.map((n) => (
      <p class="note">{n}</p>
    ))}
    <section>
      <LeaderboardTable
        b={b}
        link={(r, x) =>
          `/runs/${encodeURIComponent(refOf ? refOf(x.db, x.run_id) : x.run_id)}?${new URLSearchParams({ model: `${r.provider}/${r.model}`, mode: b.mode })}`
        }
      />
    </section>
  </Layout>
);

/** `leaderboard --format html`: one file, inline style, no script, nothing loaded. */
export function leaderboardHtml(b: Leaderboard): string {
  const body = (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta
          http-equiv="Content-Security-Policy"
          content="default-src 'none'; style-src 'unsafe-inline'"
        />
        <title>
          Leaderboard: {b.dataset}, {b.mode} · NanoBench
        </title>
        <style dangerouslySetInnerHTML={{ __html: STYLE }} />
      </head>
      <body>
        <main>
          <h1>
            Leaderboard: {b.dataset}, {b.mode} mode
          </h1>
          <section>
            <LeaderboardTable b={b} link={null} />
          </section>
        </main>
      </body>
    </html>
  );
  return `${page(body)}\n`;
}
