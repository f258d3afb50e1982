// Benchmark: report generation from a large store. Writes 100,000 synthetic trial records into a
// temporary SQLite database through the Store (as runs do), then times loading them and rendering
// the report as markdown, JSON and HTML. Prints figures; asserts nothing about speed.
//   npm run bench:report            (builds first)
//   node bench/report.mjs [trials]  (uses dist/ as it is)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultReportInputs } from '../dist/report/inputs.js';
import { renderMarkdown } from '../dist/report/markdown.js';
import { buildReport } from '../dist/report/model.js';
import { runView } from '../dist/report/trial-view.js';
import { Store } from '../dist/store/store.js';

const TOTAL = Number(process.argv[2] ?? 100_000);
const MODELS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'];
const MODES = ['hinted', 'navigation'];
const RUNS = 20;
const TASKS = Math.max(1, Math.ceil(TOTAL / (MODELS.length * MODES.length * RUNS)));
const FAILS = [
  'incorrect_fix',
  'insufficient_context_read',
  'hallucinated_api',
  'partial_fix_only',
  'zero_signal',
];

// Deterministic pseudo-random numbers (mulberry32), so every run of the benchmark is the same.
let seed = 42;
function rand() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const fmt = (n) => n.toLocaleString('en-US', { maximumFractionDigits: 0 });

const dir = mkdtempSync(join(tmpdir(), 'nb-bench-'));
const db = join(dir, 'bench.sqlite');
try {
  const taskIds = Array.from({ length: TASKS }, (_, i) => `task-${String(i).padStart(4, '0')}`);
  const task_meta = Object.fromEntries(
    taskIds.map((id, i) => [
      id,
      {
        tier: (i % 4) + 1,
        languages: i % 5 === 0 ? ['python', 'javascript'] : [i % 2 ? 'python' : 'typescript'],
        domain: `domain-${i % 12}`,
        reasoning_category: `category-${i % 9}`,
        token_estimate: 400 + ((i * 997) % 20000),
        merged_at: `2026-0${(i % 9) + 1}-15T12:00:00Z`,
        runs: RUNS,
      },
    ]),
  );
  const store = Store.open(db);
  const run = {
    id: 'bench',
    created_at: new Date().toISOString(),
    finished_at: null,
    status: 'finished',
    config: {
      agent: 'nanocoder',
      datasets: [],
      runs: RUNS,
      task_meta,
      agent_info: { nanocoder_version: '1.30.0' },
    },
    plan_size: TOTAL,
  };
  store.createRun(run);
  const t0 = process.hrtime.bigint();
  let n = 0;
  outer: for (const [ti, task_id] of taskIds.entries())
    for (const [mi, model] of MODELS.entries())
      for (const mode of MODES)
        for (let attempt = 1; attempt <= RUNS; attempt++) {
          if (n++ >= TOTAL) break outer;
          const error = rand() < 0.02;
          const pass =
            !error &&
            rand() < 0.2 + 0.15 * mi - (mode === 'navigation' ? 0.1 : 0) + (ti % 3) * 0.05;
          const label = error ? null : pass ? 'pass' : FAILS[Math.floor(rand() * FAILS.length)];
          store.insertTrial({
            run_id: run.id,
            trial_key: [task_id, 'nanocoder', 'scripted', model, mode, attempt].join('|'),
            task_id,
            agent: 'nanocoder',
            provider: mi < 3 ? 'scripted' : 'other',
            model,
            mode,
            attempt,
            status: error ? 'error' : 'scored',
            score: error ? null : pass ? 1 : label === 'partial_fix_only' ? 0.5 : 0,
            label,
            confidence_level: error ? null : '2',
            tests_passed: 7,
            tests_failed: pass ? 0 : 3,
            tests_total: 10,
            files_changed: ['src/a.ts', 'src/b.ts'],
            flags: rand() < 0.01 ? ['non_deterministic'] : [],
            exit_kind: 'success',
            timed_out: false,
            error: error ? 'provision: git fetch failed: connection reset' : null,
            details: {
              explanation: 'synthetic trial for the report benchmark',
              fail_to_pass: Array.from({ length: 4 }, (_, i) => ({
                id: `js::case ${i}`,
                passed: pass,
              })),
              pass_to_pass: Array.from({ length: 6 }, (_, i) => ({
                id: `js::keep ${i}`,
                passed: true,
              })),
              suites: [
                { name: 'js', exit_code: pass ? 0 : 1, timed_out: false, ms: 812, tests: 10 },
              ],
              usage: { inputTokens: 12000, outputTokens: 900, totalTokens: 12900 },
            },
            started_at: '2026-03-01T00:00:00Z',
            finished_at: '2026-03-01T00:01:00Z',
            duration_ms: 60000,
            artifacts_dir: null,
          });
        }
  const writeMs = ms(t0);
  store.close();
  console.log(
    `wrote ${fmt(TOTAL)} trials (${TASKS} tasks x ${MODELS.length} models x ${MODES.length} modes x ${RUNS} runs) through Store.insertTrial: ${fmt(writeMs)} ms, ${fmt(TOTAL / (writeMs / 1000))} records/s`,
  );

  const timings = {};
  // Wall time, and CPU time of this process: on a shared machine the CPU figure is the stable one.
  const cpu = {};
  const cpuMs = (c) => {
    const d = process.cpuUsage(c);
    return (d.user + d.system) / 1000;
  };
  const time = (name, f) => {
    const [t, c] = [process.hrtime.bigint(), process.cpuUsage()];
    const out = f();
    [timings[name], cpu[name]] = [ms(t), cpuMs(c)];
    return out;
  };
  const timeAsync = async (name, f) => {
    const [t, c] = [process.hrtime.bigint(), process.cpuUsage()];
    const out = await f();
    [timings[name], cpu[name]] = [ms(t), cpuMs(c)];
    return out;
  };
  const s = Store.open(db);
  const stored = time('load run', () => s.getRun('bench'));
  const outcomes = time('load outcomes (md, html)', () => s.trialOutcomes('bench'));
  const report = time('build report', () =>
    buildReport(stored, outcomes, defaultReportInputs(stored)),
  );
  const md = time('render md', () => renderMarkdown(report));
  const { renderHtml } = await timeAsync(
    'import html renderer (echarts)',
    () => import('../dist/report/html.js'),
  );
  const html = time('render html', () => renderHtml(report));
  const full = time('load full trials (json)', () => s.trials('bench'));
  const json = time('render json', () =>
    JSON.stringify({ ...runView(stored, full), report }, null, 2),
  );
  s.close();
  console.log(`  ${'step'.padEnd(32)} ${'wall'.padStart(9)} ${'cpu'.padStart(9)}`);
  for (const [k, v] of Object.entries(timings))
    console.log(`  ${k.padEnd(32)} ${fmt(v).padStart(6)} ms ${fmt(cpu[k]).padStart(6)} ms`);
  const total = (m, keys) => fmt(keys.reduce((a, k) => a + m[k], m['load run'])).padStart(6);
  const steps = {
    md: ['load outcomes (md, html)', 'build report', 'render md'],
    html: [
      'load outcomes (md, html)',
      'build report',
      'import html renderer (echarts)',
      'render html',
    ],
    json: ['load outcomes (md, html)', 'build report', 'load full trials (json)', 'render json'],
  };
  const size = {
    md: `${fmt(md.length)} chars`,
    html: `${(html.length / 1e6).toFixed(1)} MB`,
    json: `${fmt(json.length / 1e6)} MB, with every trial's telemetry`,
  };
  console.log('report from the store, end to end (wall / cpu):');
  for (const f of ['md', 'html', 'json'])
    console.log(
      `  ${f.padEnd(4)} ${total(timings, steps[f])} ms / ${total(cpu, steps[f])} ms  (${size[f]})`,
    );
  console.log(
    `matrix cells: ${fmt(report.matrix.length)}; peak RSS: ${fmt(process.resourceUsage().maxRSS / 1024)} MB`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
