// Issue #4: the HTML report of a real stored run (the real Nanocoder against scripted models,
// both modes), opened from a file:// URL in headless Chromium. The page must load nothing but
// itself, show the provider matrix, and render its charts as inline SVG.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nanobench, runJson, screenshotPath, tempDir } from '../helpers/cli.js';

// npm test finds Chromium (installing Debian's package as root) and names it here.
const CHROMIUM = process.env.NANOBENCH_TEST_CHROMIUM || '/usr/bin/chromium';
const dir = tempDir('nb-html-');
const db = join(dir, 'r.sqlite');
const html = join(dir, 'report.html');
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: install the Debian package "chromium" (npm test does)`,
    );
  runJson([
    'run',
    'examples',
    '--agent',
    'nanocoder',
    '--provider',
    'scripted',
    '--model',
    'competent,hallucinator',
    '--mode',
    'both',
    '--runs',
    '1',
    '--task',
    'textkit-001,textkit-002',
    '--concurrency',
    '2',
    '--db',
    db,
  ]);
  const r = nanobench(['report', '--db', db, '--format', 'html', '--out', html]);
  expect(r.code, r.stderr).toBe(0);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}, 240_000);

afterAll(async () => {
  await browser?.close();
});

describe('the HTML report in a browser', () => {
  it('loads nothing but itself, shows the matrix and renders the charts', async () => {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (req) => requests.push(req.url()));
    page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(e.message));
    const url = `file://${html}`;
    await page.goto(url);
    await page.screenshot({ path: screenshotPath('nanobench-report.png'), fullPage: true });

    expect(requests.filter((u) => u !== url && !u.startsWith('data:'))).toEqual([]);
    expect(problems).toEqual([]);

    // 2 models x 2 tasks x 2 modes
    const rows = await page.$$eval('#matrix tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 4).map((td) => td.textContent)),
    );
    expect(rows).toHaveLength(8);
    expect(rows).toContainEqual(['scripted/competent', 'textkit-001', 'hinted', 'pass']);
    expect(rows).toContainEqual(['scripted/hallucinator', 'textkit-002', 'navigation', 'fail']);

    const charts = await page.$$eval('figure svg', (svgs) =>
      svgs.map((svg) => {
        const drawn = [...svg.querySelectorAll('path, rect')].filter((el) => {
          const b = (el as SVGGraphicsElement).getBoundingClientRect();
          const fill = el.getAttribute('fill');
          return b.width > 2 && b.height > 2 && fill && fill !== 'none' && fill !== 'transparent';
        });
        return { drawn: drawn.length, text: svg.textContent ?? '' };
      }),
    );
    expect(charts).toHaveLength(3); // scores, navigation delta, taxonomy
    // the score chart: competent's bars (100% in both modes) are drawn, with the task count
    expect(charts[0].drawn).toBeGreaterThanOrEqual(2);
    expect(charts[0].text).toContain('scripted/competent · hinted');
    expect(charts[0].text).toContain('2 tasks');
    // the taxonomy: one stacked segment per label present
    expect(charts[2].drawn).toBeGreaterThanOrEqual(3);
    expect(charts[2].text).toContain('hallucinated_api');
    await page.close();
  });

  it('the same run as markdown and JSON: same numbers, snapshot metadata', () => {
    const md = nanobench(['report', '--db', db]);
    expect(md.code, md.stderr).toBe(0);
    expect(md.stdout).toContain(
      '| scripted/competent | hinted | 2 | 100% [34–100%] | ±33 pp | 2/2 (100%) | 1.00 | 0 |',
    );
    const json = JSON.parse(nanobench(['report', '--db', db, '--format', 'json']).stdout);
    expect(json.report.matrix).toHaveLength(8);
    expect(json.report.task_meta).toMatchObject({ source: 'snapshot', note: null });
    expect(json.report.navigation_delta.map((d: { model: string }) => d.model)).toEqual([
      'competent',
      'hallucinator',
    ]);
    expect(json.trials).toHaveLength(8);
    expect(readFileSync(html, 'utf8')).toContain('<td>scripted/competent</td>');
    const bad = nanobench(['report', '--db', db, '--format', 'pdf']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--format must be md, html or json/);
  });
});
