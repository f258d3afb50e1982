// Issue 26: `nanobench leaderboard` and `nanobench runs` through the CLI over real runs: the real
// Nanocoder against the scripted model server on three example tasks, two runs in one database
// (competent + hallucinator, then competent + wanderer) and an oracle run in a second one. Then
// the leaderboard page of `nanobench view` in Chromium.
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Leaderboard } from '../../src/report/leaderboard.js';
import { nanobench, nanobenchAsync, runJson, screenshotPath, tempDir } from '../helpers/cli.js';

const CHROMIUM = '/usr/bin/chromium';
const dir = tempDir('nb-leaderboard-');
const a = join(dir, 'a.sqlite');
const b = join(dir, 'b.sqlite');
const TASKS = ['--task', 'textkit-001,textkit-002,invoicing-001', '--runs', '1'];
const ids = { first: '', second: '', oracle: '' };

beforeAll(() => {
  const scripted = (models: string) => [
    ...['run', 'examples', ...TASKS, '--agent', 'nanocoder', '--model', models],
    ...['--concurrency', '2', '--db', a],
  ];
  ids.first = runJson(scripted('competent,hallucinator')).run_id;
  ids.second = runJson(scripted('competent,wanderer')).run_id;
  ids.oracle = runJson([
    'run',
    'examples',
    '--task',
    'textkit-001',
    '--agent',
    'oracle',
    '--db',
    b,
  ]).run_id;
}, 400_000);

function board(args: string[]): Leaderboard {
  const r = nanobench(['leaderboard', ...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe('nanobench leaderboard', () => {
  it('ranks over two runs: competent first, the two it beats tied below it', () => {
    const lb = board(['--db', a]);
    expect(lb).toMatchObject({
      dataset: 'nanobench-examples@0.2.0',
      mode: 'hinted',
      dataset_tasks: 5,
    });
    expect(lb.rows.map((r) => [r.model, r.rank, r.tied])).toEqual([
      ['competent', 1, false],
      ['hallucinator', 2, false],
      ['wanderer', 2, true],
    ]);
    const [competent, hallucinator, wanderer] = lb.rows;
    // One row per (provider, model, Nanocoder version): competent's trials of both runs pooled.
    expect(competent.runs.map((r) => r.run_id).sort()).toEqual([ids.first, ids.second].sort());
    expect(competent).toMatchObject({ provider: 'scripted', nanocoder_version: '1.30.0' });
    expect(competent.trials).toMatchObject({ passed: 6, scored: 6, errors: 0 });
    expect(competent.tasks.pass_rate).toBe(1);
    expect(competent.coverage).toEqual({ tasks: 3, dataset_tasks: 5, whole: false });
    // Three shared tasks are too few for the paired test: the overlap rule decides (6/6 vs 0/3
    // separate; 0/3 vs 0/3 do not).
    expect(hallucinator.versus_above).toMatchObject({
      rule: 'overlap',
      shared_tasks: 3,
      separated: true,
    });
    expect(wanderer.versus_above).toMatchObject({
      rule: 'overlap',
      shared_tasks: 3,
      separated: false,
    });
    expect(hallucinator.failure_labels.map((l) => l.label)).toContain('hallucinated_api');
    expect(wanderer.failure_labels).toEqual([{ label: 'zero_signal', count: 3 }]);
    // The proxy counted every Nanocoder trial: tokens per trial, and per solved task for competent.
    expect(competent.usage.counted_trials).toBe(6);
    expect(competent.usage.tokens_per_trial).toBeGreaterThan(0);
    expect(competent.usage.tokens_per_solved).toBe(competent.usage.tokens_per_trial);
    expect(wanderer.usage.tokens_per_solved).toBeNull();
  });

  it('reads several databases, as markdown with the ties marked', () => {
    const r = nanobench(['leaderboard', '--db', a, b]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('## Leaderboard: nanobench-examples@0.2.0 (5 tasks), hinted mode');
    expect(r.stdout).toMatch(/\| 1 \| scripted\/competent \| 1\.30\.0 \| 100% \[/);
    // The oracle ran one task in the other database: as good there, measured on 1 of 5 tasks, so
    // below competent (fewer tasks) and tied with it (one shared task separates nothing). It does
    // not bridge competent and hallucinator: each row is compared with every row above it.
    expect(r.stdout).toMatch(/\| =1 \| \(oracle\) \| — \| 100% \[.*\| 1\/5 \(partial\) \|/);
    expect(r.stdout).toMatch(/\| 2 \| scripted\/hallucinator \|/);
    expect(r.stdout).toMatch(/\| =2 \| scripted\/wanderer \|/);
    expect(r.stdout).toContain('- =1 (oracle) vs scripted/competent: 1 shared task (too few');
    expect(r.stdout).toContain(
      '- 2 scripted/hallucinator vs (oracle): 1 shared task (too few for the paired test, which needs 6): their 95% intervals on them overlap; worse beyond noise than: scripted/competent',
    );
    expect(r.stdout).toContain(`Runs: ${ids.first}, ${ids.second}, ${ids.oracle}`);
  });

  it('refuses an unknown dataset or mode in one line, and writes html to --out', () => {
    const bad = nanobench(['leaderboard', '--db', a, '--dataset', 'nanobench-v1@9.9.9']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toEqual([
      `nanobench: --dataset: no stored run of "nanobench-v1@9.9.9" in ${a}; stored: nanobench-examples@0.2.0`,
    ]);
    const mode = nanobench(['leaderboard', '--db', a, '--mode', 'both']);
    expect(mode.code).toBe(2);
    expect(mode.stderr).toContain('--mode must be hinted or navigation, got "both"');
    const out = join(dir, 'board.html');
    const html = nanobench(['leaderboard', '--db', a, '--format', 'html', '--out', out]);
    expect(html.code, html.stderr).toBe(0);
    const page = readFileSync(out, 'utf8');
    expect(page).toContain('<table id="leaderboard">');
    expect(page).toContain('scripted/hallucinator');
    expect(page).not.toMatch(/<script|https?:\/\//);
  });
});

describe('nanobench runs, and an unknown run id', () => {
  it('lists the runs newest first with models, dataset version and sandbox', () => {
    const r = nanobench(['runs', '--db', a, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout);
    expect(rows.map((x: { id: string }) => x.id)).toEqual([ids.second, ids.first]);
    expect(rows[1]).toMatchObject({
      agent: 'nanocoder',
      nanocoder_version: '1.30.0',
      providers: ['scripted'],
      models: ['scripted/competent', 'scripted/hallucinator'],
      datasets: ['nanobench-examples@0.2.0'],
      status: 'finished',
      trials: 6,
      passed: 3,
      errors: 0,
    });
    expect(rows[1].sandbox).toEqual(expect.any(String));
    const text = nanobench(['runs', '--db', a]);
    expect(text.stdout.split('\n')[0]).toMatch(
      /^run +created +agent +nanocoder +models +dataset +sandbox +status +trials +passed +95% CI +errors$/,
    );
    expect(text.stdout).toContain('scripted/competent,scripted/wanderer');
  });

  it('report on a mistyped id names the nearest ones, in one line', () => {
    const typo = `${ids.first.slice(0, -1)}x`;
    const r = nanobench(['report', typo, '--db', a]);
    expect(r.code).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toBe(
      `nanobench: ${a}: no run "${typo}"; nearest: ${ids.first}, ${ids.second} (2 stored; nanobench runs --db ${a} lists them)`,
    );
  });
});

describe('the leaderboard page of nanobench view', () => {
  let browser: Browser;
  let viewer: ReturnType<typeof nanobenchAsync>;
  let url = '';

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(
        `${CHROMIUM} is missing: install the Debian package "chromium" (see .ci/run)`,
      );
    viewer = nanobenchAsync(['view', '--db', a, '--port', '0']);
    let out = '';
    viewer.stdout.on('data', (d) => {
      out += d;
    });
    while (!out.includes('\n')) await once(viewer.stdout, 'data');
    url = out.trim();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    viewer?.kill('SIGTERM');
  });

  it('shows the same table, reached from the runs page, with links into the runs', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(url);
    await page.click('#leaderboard-link');
    await page.waitForSelector('#leaderboard');
    await page.screenshot({
      path: screenshotPath('nanobench-view-leaderboard.png'),
      fullPage: true,
    });
    const ranks = await page.$$eval('#leaderboard tbody tr', (trs) =>
      trs.map((tr) =>
        [...tr.querySelectorAll('td')].slice(0, 2).map((td) => td.textContent?.trim()),
      ),
    );
    expect(ranks).toEqual([
      ['1', 'scripted/competent'],
      ['2', 'scripted/hallucinator'],
      ['=2', 'scripted/wanderer'],
    ]);
    // Number headers sit over their right-aligned cells.
    const align = await page.$eval(
      '#leaderboard thead th:nth-child(4)',
      (th) => getComputedStyle(th).textAlign,
    );
    expect(align).toBe('right');
    expect(await page.textContent('#separations')).toContain('too few for the paired test');
    // A row's run link opens that run filtered to the row's model and mode.
    await page.click(`#leaderboard tbody tr:nth-child(3) a[href^="/runs/${ids.second}"]`);
    await page.waitForSelector('#matrix');
    expect(new URL(page.url()).search).toBe('?model=scripted%2Fwanderer&mode=hinted');
    expect(requests.every((r) => r.startsWith(url))).toBe(true);
    await page.close();
  });
});
