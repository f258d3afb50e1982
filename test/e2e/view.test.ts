// Issue #15: `nanobench view` in headless Chromium over a demo database (the real Nanocoder
// against scripted models) plus two control runs: the runs page, a run filtered to a label, a
// trial's prompt, transcript, diff and tests, keyboard navigation, compare (the same verdicts as
// `nanobench compare`), 404 pages, a store left untouched, and a run page following a run live.
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nanobench, nanobenchAsync, runJson, screenshotPath, tempDir } from '../helpers/cli.js';

const CHROMIUM = '/usr/bin/chromium';
const dir = tempDir('nb-view-e2e-');
const db = join(dir, 'demo.sqlite');
const ids = { demo: '', oracle: '', nop: '' };
let viewer: ReturnType<typeof nanobenchAsync>;
let url = '';
let browser: Browser;

const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');
const onTask = ['examples', '--task', 'textkit-001', '--runs', '5', '--db', db];

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: install the Debian package "chromium" (see .ci/run)`);
  const demo = nanobench([
    ...['demo', '--db', db, '--model', 'competent', 'hallucinator', '--mode', 'hinted'],
    ...['--runs', '1', '--json'],
  ]);
  expect(demo.code, demo.stderr).toBe(0);
  ids.demo = JSON.parse(demo.stdout).run_id;
  ids.oracle = runJson(['run', ...onTask, '--agent', 'oracle']).run_id;
  ids.nop = runJson(['run', ...onTask, '--agent', 'nop']).run_id;
  viewer = nanobenchAsync(['view', '--db', db, '--port', '0']);
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
}, 400_000);

afterAll(async () => {
  await browser?.close();
  viewer?.kill('SIGTERM');
});

/** A page that records every request and every console error. */
async function open(path?: string) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
  page.on('pageerror', (e) => problems.push(e.message));
  if (path !== undefined) await page.goto(`${url}${path}`);
  return { page, requests, problems };
}

const texts = (page: Page, selector: string) =>
  page.$$eval(selector, (els) => els.map((e) => (e.textContent ?? '').trim()));

describe('nanobench view in a browser', () => {
  let before = '';

  it('the runs page: every run with its pass rate, and nothing loaded from elsewhere', async () => {
    before = sha(db);
    const { page, requests, problems } = await open('');
    await page.screenshot({ path: screenshotPath('nanobench-view-runs.png'), fullPage: true });
    expect(await texts(page, '#runs tbody tr td:nth-child(3)')).toEqual([
      ids.nop,
      ids.oracle,
      ids.demo,
    ]);
    const report = JSON.parse(nanobench(['report', ids.demo, '--db', db, '--json']).stdout).report;
    const row = await texts(page, `tr[data-run="${ids.demo}"] td.num`);
    expect(row).toEqual([
      '10/10',
      `${report.overall.passed}/${report.overall.scored} (50%)`,
      `${Math.round(report.overall.ci95.low * 100)}–${Math.round(report.overall.ci95.high * 100)}%`,
      '0',
    ]);
    expect(requests.filter((u) => !u.startsWith(url))).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("a run: the report's matrix; filter to a label; open a trial: transcript, diff, tests; keys", async () => {
    const { page, requests, problems } = await open('');
    await page.click(`a[href="/runs/${ids.demo}"]`);
    await page.waitForURL(`${url}runs/${ids.demo}`);
    // the matrix is the report's: same cells, same order, same numbers
    const md = nanobench(['report', ids.demo, '--db', db, '--json']);
    const report = JSON.parse(md.stdout).report;
    const cells = await page.$$eval('#matrix tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].slice(1, 7).map((td) => td.textContent)),
    );
    expect(cells).toEqual(
      report.matrix.map((c: Record<string, unknown>) => [
        c.task_id,
        c.mode,
        c.pass_at_1 ? 'pass' : 'fail',
        (c.mean_score as number).toFixed(2),
        `${c.passed}/${c.scored}`,
        expect.stringMatching(/^\d+–\d+%$/),
      ]),
    );

    // filter to a label: the select applies itself
    await page.selectOption('select[name="label"]', 'hallucinated_api');
    await page.waitForURL(/label=hallucinated_api/);
    await page.screenshot({ path: screenshotPath('nanobench-view-run.png'), fullPage: true });
    const json = JSON.parse(nanobench(['report', ids.demo, '--db', db, '--json']).stdout);
    const hallucinated = json.trials.filter(
      (t: { label: string }) => t.label === 'hallucinated_api',
    );
    expect(hallucinated.length).toBeGreaterThanOrEqual(2);
    const results = await texts(page, '#trials-table tbody td:nth-child(6)');
    expect(results).toEqual(hallucinated.map(() => 'hallucinated_api'));

    // open the first in hinted mode (trials run two at a time, so either mode may come first):
    // everything a maintainer needs to see why it failed
    const first = page
      .locator('#trials-table tbody tr', { hasText: 'hinted' })
      .first()
      .locator('a[data-nav-item]');
    const href = await first.getAttribute('href');
    await first.click();
    await page.waitForURL(`${url}${href!.slice(1)}`);
    expect(await page.textContent('#label')).toBe('hallucinated_api');
    expect(await page.textContent('#rule')).toMatch(/^rule 4 of 8: no fail_to_pass test passes/);
    const prompt = await page.textContent('#prompt-text');
    expect(prompt).toMatch(/Key files to focus on:/); // hinted mode, as the agent got it
    const steps = await page.$$('[data-step]');
    expect(steps.length).toBeGreaterThanOrEqual(3);
    const tools = await texts(page, '#transcript .tool-name');
    expect(tools).toContain('read_file');
    expect(tools.some((t) => ['write_file', 'string_replace'].includes(t))).toBe(true);
    expect((await texts(page, '#files-written li')).length).toBeGreaterThan(0);
    expect(await page.$$('#diff .diff-file.required')).not.toHaveLength(0);
    expect(await page.$$('#diff .diff-body .add')).not.toHaveLength(0);
    const f2p = await page.$$eval('#fail-to-pass tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
    );
    expect(f2p.length).toBeGreaterThan(0);
    expect(f2p.every(([, outcome]) => outcome === 'failed')).toBe(true);
    // why each failed: the stored message names the symbol the change invented
    expect(
      f2p.some(([, , message]) => /is not defined|has no attribute|not a function/.test(message)),
    ).toBe(true);
    expect(await page.textContent('#telemetry')).toMatch(/tokens in \/ out \/ total\s*\d+ \/ \d+/);
    await page.screenshot({ path: screenshotPath('nanobench-view-trial.png'), fullPage: true });

    // keys: j next (within the filter), k back, u up to the filtered run page
    const here = page.url();
    await page.keyboard.press('j');
    await page.waitForURL((u) => u.href !== here && /label=hallucinated_api/.test(u.href));
    expect(await page.textContent('#label')).toBe('hallucinated_api');
    await page.keyboard.press('k');
    await page.waitForURL(here);
    await page.keyboard.press('u');
    await page.waitForURL(`${url}runs/${ids.demo}?label=hallucinated_api#trials`);
    expect(requests.filter((u) => !u.startsWith(url))).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('compare two runs: the verdicts of nanobench compare', async () => {
    const { page, problems } = await open('');
    await page.check(`input[name="base"][value="${ids.oracle}"]`);
    await page.check(`input[name="candidate"][value="${ids.nop}"]`);
    await page.click('#compare-form button[type="submit"]');
    await page.waitForURL(/\/compare\?/);
    await page.screenshot({ path: screenshotPath('nanobench-view-compare.png'), fullPage: true });
    const cli = JSON.parse(
      nanobench(['compare', ids.oracle, ids.nop, '--db', db, '--json']).stdout,
    );
    const shown = await texts(page, '#compare-table .verdict');
    expect(shown).toEqual(cli.groups.map((g: { verdict: string }) => g.verdict));
    expect(cli.groups.map((g: { verdict: string }) => g.verdict)).toEqual(['regression']);
    expect(await texts(page, '#compare-table .overlap-verdict')).toEqual(['regression']);
    // No pooled row: the headline is a statement over groups.
    expect((await texts(page, '#compare-result'))[0]).toMatch(/Regressed in 1 of 1 group/);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('a bad run or trial id is a 404 page; the viewer never wrote to the store', async () => {
    const { page } = await open();
    for (const path of [
      'runs/nope',
      `runs/${ids.demo}/trials/99999`,
      `runs/${ids.demo}/trials/x`,
    ]) {
      const res = await page.goto(`${url}${path}`);
      expect(res?.status(), path).toBe(404);
      expect(await page.textContent('#error-message'), path).toMatch(/No run|has no trial/);
    }
    await page.screenshot({ path: screenshotPath('nanobench-view-404.png') });
    expect((await page.goto(url))?.status()).toBe(200);
    await page.close();
    expect(sha(db)).toBe(before);
  });

  it('a running run: its page updates as trials finish, without a reload', async () => {
    const run = nanobenchAsync([
      ...['run', 'examples', '--task', 'textkit-001', '--runs', '3', '--concurrency', '1'],
      ...['--agent', 'command:sleep 2', '--db', db],
    ]);
    const exited = once(run, 'exit');
    let id: string | undefined;
    while (!id) {
      await new Promise((r) => setTimeout(r, 200));
      const d = new Database(db, { readonly: true });
      id = (d.prepare("SELECT id FROM runs WHERE status = 'running'").get() as { id: string })?.id;
      d.close();
    }
    const { page, problems } = await open(`runs/${id}`);
    await page.evaluate(() => {
      (window as unknown as { loadedOnce: boolean }).loadedOnce = true;
    });
    const seen = new Set<string>();
    const watch = setInterval(async () => {
      seen.add((await page.textContent('#run-trials').catch(() => '')) ?? '');
    }, 100);
    await page.waitForFunction(
      () => document.querySelector('#run-status')?.textContent === 'finished',
      undefined,
      { timeout: 60_000 },
    );
    clearInterval(watch);
    await page.screenshot({ path: screenshotPath('nanobench-view-live.png'), fullPage: true });
    expect(await page.textContent('#run-trials')).toBe('3/3');
    expect(await page.$$('#trials-table tbody tr')).toHaveLength(3);
    // the same document all along: refreshed in place
    expect(
      await page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce),
    ).toBe(true);
    expect(
      Number(await page.evaluate(() => document.body.dataset.refreshed)),
    ).toBeGreaterThanOrEqual(2);
    expect([...seen].filter((s) => /^[0-3]\/3$/.test(s)).length).toBeGreaterThanOrEqual(2);
    expect(problems).toEqual([]);
    expect((await exited)[0]).toBe(0);
    await page.close();
  }, 120_000);
});
