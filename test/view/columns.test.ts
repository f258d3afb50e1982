// The viewer's tables as a reader sees them: every number column's header is right-aligned over
// its cells (issue 26: "passed" read as if it were under "95% CI"), and the compare page shows
// the tokens and cost columns with their deltas that `nanobench compare` prints, from the same
// UsageComparison.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareSide } from '../../src/report/compare-input.js';
import { COMPARE_HEADER } from '../../src/report/compare-markdown.js';
import { costChangeText, tokensChangeText } from '../../src/report/format.js';
import { compareRuns } from '../../src/stats/compare.js';
import { Store, type TrialRecord } from '../../src/store/store.js';
import { COLUMNS } from '../../src/view/pages/compare.js';
import { viewApp } from '../../src/view/server.js';
import { tempDir } from '../helpers/cli.js';
import { run, trial } from '../report/make-trials.js';

const proxy = (input: number, output: number, cost: number | null) => ({
  proxy: { tokens: { input, output, total: input + output }, cost_usd: cost },
});

const cellsOf = (row: string) =>
  [...row.matchAll(/<(t[hd])((?:\s[^>]*)?)>([\s\S]*?)<\/\1>/g)].map((m) => ({
    num: /\bclass="[^"]*\bnum\b/.test(m[2]),
    text: m[3].replace(/<[^>]+>/g, '').trim(),
  }));

/** "table#id: header" for each column whose cells are numbers and whose header is not. */
function misaligned(html: string): string[] {
  const out: string[] = [];
  for (const t of html.matchAll(/<table([^>]*)>([\s\S]*?)<\/table>/g)) {
    const id = t[1].match(/id="([^"]+)"/)?.[1] ?? '?';
    const head = t[2].match(/<thead>([\s\S]*?)<\/thead>/)?.[1];
    const body = t[2].match(/<tbody>([\s\S]*?)<\/tbody>/)?.[1] ?? '';
    if (!head) continue;
    const headers = cellsOf(head);
    for (const row of body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g))
      cellsOf(row[1]).forEach((c, i) => {
        const h = headers[i];
        const name = `table#${id}: ${h?.text ?? `column ${i + 1}`}`;
        if (c.num && !h?.num && !out.includes(name)) out.push(name);
      });
  }
  return out;
}

const dir = tempDir('nb-view-cols-');
let reader: Store;
let app: ReturnType<typeof viewApp>['app'];

function add(s: Store, runId: string, trials: Partial<TrialRecord>[]) {
  trials.forEach((over, i) => {
    s.insertTrial(trial({ run_id: runId, trial_key: `${runId}-${i}`, attempt: i + 1, ...over }));
  });
}

beforeAll(() => {
  const db = join(dir, 'results.sqlite');
  const w = Store.open(db);
  w.createRun({ ...run({ runs: 4, datasets: ['/ds'] }, 'base'), plan_size: 5 });
  w.createRun({ ...run({ runs: 4, datasets: ['/ds'] }, 'cand'), plan_size: 4 });
  // base: 2 of 4 pass at 1000 tokens and $0.01 a trial, plus a paid infra error;
  // candidate: 3 of 4 pass at 1500 tokens and $0.02 a trial.
  add(w, 'base', [
    {
      details: {
        ...proxy(800, 200, 0.01),
        suites: [
          { name: 'js', status: 'reported', exit_code: 0, tests: 3, ms: 120, timed_out: false },
        ],
      },
    },
    { details: proxy(800, 200, 0.01) },
    { label: 'incorrect_fix', score: 0, details: proxy(800, 200, 0.01) },
    { label: 'incorrect_fix', score: 0, details: proxy(800, 200, 0.01) },
    { status: 'error', error_stage: 'agent', error_code: 'crashed', details: proxy(0, 0, 0) },
  ]);
  add(w, 'cand', [
    { details: proxy(1200, 300, 0.02) },
    { details: proxy(1200, 300, 0.02) },
    { details: proxy(1200, 300, 0.02) },
    { label: 'incorrect_fix', score: 0, details: proxy(1200, 300, 0.02) },
  ]);
  w.close();
  reader = Store.open(db, { readonly: true });
  app = viewApp(reader, { allowedHosts: ['localhost'] }).app;
});
afterAll(() => reader?.close());

const get = async (path: string) => (await app.request(`http://localhost${path}`)).text();

describe('the viewer tables', () => {
  it('right-align every number column header over its cells, on every page', async () => {
    expect(
      misaligned(
        '<table id="x"><thead><tr><th>n</th></tr></thead><tbody><tr><td class="num">1</td></tr></tbody></table>',
      ),
    ).toEqual(['table#x: n']);
    for (const path of [
      '/',
      '/leaderboard',
      '/runs/base',
      '/runs/base/trials/1',
      '/compare?base=base&candidate=cand',
    ]) {
      const html = await get(path);
      expect(html, path).toMatch(/<table/);
      expect(misaligned(html), path).toEqual([]);
    }
  });

  it('compare: the tokens and cost columns and deltas of nanobench compare', async () => {
    const html = await get('/compare?base=base&candidate=cand');
    const c = compareRuns(
      compareSide(reader, reader.getRun('base')!),
      compareSide(reader, reader.getRun('cand')!),
    );
    const u = c.groups[0].usage;
    // per trial: 4000 tokens over 5 counted trials (the infra error counted, at 0) -> 800;
    // per solved: $0.04 over 2 passes -> $0.02, against $0.08 over 3.
    expect(u.base.tokens_per_trial).toBe(800);
    expect(u.candidate.tokens_per_trial).toBe(1500);
    expect(u.base.cost_per_solved_usd).toBeCloseTo(0.02, 10);
    const usage = [...html.matchAll(/<td class="num usage">([^<]*)<\/td>/g)].map((m) => m[1]);
    expect(usage).toEqual([
      tokensChangeText(u),
      costChangeText(u, 'trial'),
      costChangeText(u, 'solved'),
    ]);
    expect(usage[0]).toBe('800 → 1.5k (+700)');
    expect(usage[2]).toBe('$0.02 → $0.027 (+$0.0067)');
    // The same columns, in the same order, as the markdown table of nanobench compare (whose
    // "paired verdict"/"overlap verdict" read "paired"/"overlap" here, and which has no verdict
    // (rule) column: its verdict is the statement above the table).
    const here = COLUMNS.map(([h]) => h);
    expect(here.slice(0, 10)).toEqual(COMPARE_HEADER.slice(0, 10));
    const head = html.match(/<table id="compare-table"><thead><tr>([\s\S]*?)<\/tr>/)![1];
    expect(cellsOf(head).map((x) => x.text)).toEqual(here);
    const row = html.match(/<tr data-group[^>]*>([\s\S]*?)<\/tr>/)![1];
    expect(cellsOf(row)).toHaveLength(here.length);
    expect(html).toMatch(/id="usage-note">Tokens \(in \+ out\) and cost are per trial/);
  });
});
