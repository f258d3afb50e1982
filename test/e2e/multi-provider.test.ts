// Issue 26 §1: one run over several providers. Three names in one providers file, all the
// scripted model server (a stand-in, not a model) started here, one of them speaking Anthropic's
// format; the real Nanocoder through the proxy. The (provider, model) pair is the unit in the
// plan, the store, the report, the leaderboard and `runs`; the preflight asks every pair before
// any trial; a provider's `concurrency` bounds its requests at once (its request slots).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCassette } from '../../src/provider/cassette.js';
import { CASSETTE_FILE } from '../../src/provider/endpoints.js';
import { parseScript } from '../../src/provider/script-schema.js';
import { type ScriptedServer, startScriptedServer } from '../../src/provider/scripted-server.js';
import type { Leaderboard } from '../../src/report/leaderboard.js';
import type { UsageSummary } from '../../src/stats/usage.js';
import { Store } from '../../src/store/store.js';
import { nanobenchAwait, tempDir } from '../helpers/cli.js';

const KEY_ENV = 'NB_E2E_MULTI_PROVIDER_KEY';
const env = { [KEY_ENV]: 'sk-NANOBENCH-FAKE-multi-provider' };
// textkit-001's fix, as our own scripted steps; each reply takes 800 ms, as a provider thinking
// would, so that two requests in flight at once would overlap.
const fix = [
  { tool: 'read_file', args: { path: 'src/truncate.js' }, delay_ms: 800 },
  {
    tool: 'string_replace',
    args: {
      path: 'src/truncate.js',
      old_str: '\n  let cut = text.slice(0, maxLength);\n',
      new_str:
        '  if (ellipsis.length >= maxLength) return ellipsis.slice(0, maxLength);\n\n  let cut = text.slice(0, maxLength - ellipsis.length);\n',
    },
    delay_ms: 800,
  },
  { final: 'The ellipsis now counts towards maxLength.', delay_ms: 800 },
];
const scripts = [
  parseScript({ model: 'solver', tasks: { '*': { steps: fix } } }, 'solver'),
  parseScript(
    { model: 'idler', tasks: { '*': { steps: [{ final: 'Nothing to do.' }] } } },
    'idler',
  ),
  parseScript({ model: 'unpaid', refuse: 'billing' }, 'unpaid'),
];

const dir = tempDir('nb-multi-provider-');
const db = join(dir, 'multi.sqlite');
const providers = join(dir, 'providers.json');
let server: ScriptedServer;
let runId = '';

const trialsArgs = [
  'run',
  'examples',
  '--task',
  'textkit-001',
  '--runs',
  '2',
  '--agent',
  'nanocoder',
];

beforeAll(async () => {
  server = await startScriptedServer(scripts);
  const decl = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    base_url: `${server.url}/v1`,
    api_key_env: KEY_ENV,
    models: ['solver', 'idler', 'unpaid'],
    ...extra,
  });
  writeFileSync(
    providers,
    JSON.stringify({
      providers: [
        decl('alpha', { price_per_million: { input: 1, output: 2 }, concurrency: 1 }),
        decl('beta', { kind: 'anthropic', price_per_million: { input: 3, output: 15 } }),
        decl('gamma'),
      ],
    }),
  );
  const r = await nanobenchAwait(
    [
      ...trialsArgs,
      ...['--model', 'alpha:solver,beta:solver,gamma:idler', '--providers-config', providers],
      ...['--concurrency', '4', '--db', db, '--json'],
    ],
    env,
  );
  expect(r.code, r.stderr).toBe(0);
  runId = JSON.parse(r.stdout).run_id;
}, 400_000);

afterAll(async () => {
  await server?.close();
});

describe('one run over three providers', () => {
  it('asks every pair at the preflight before any trial, and stores the pairs as the unit', () => {
    const first = server.requests
      .slice(0, 3)
      .map((q) => q.model)
      .sort();
    // The three preflight requests come first (each pair once, "Reply with OK.").
    expect(first).toEqual(['idler', 'solver', 'solver']);
    expect(JSON.stringify(server.requests.slice(0, 3).map((q) => q.body))).toContain(
      'Reply with OK.',
    );
    const store = Store.open(db, { readonly: true });
    const run = store.getRun(runId)!;
    const trials = store.trials(runId);
    store.close();
    expect(run.config.models).toEqual([
      { provider: 'alpha', model: 'solver' },
      { provider: 'beta', model: 'solver' },
      { provider: 'gamma', model: 'idler' },
    ]);
    expect(trials.map((t) => `${t.provider}/${t.model}:${t.label}`).sort()).toEqual([
      'alpha/solver:pass',
      'alpha/solver:pass',
      'beta/solver:pass',
      'beta/solver:pass',
      'gamma/idler:zero_signal',
      'gamma/idler:zero_signal',
    ]);
    // beta spoke Anthropic's format through the proxy; the others chat completions.
    const kinds = Object.fromEntries(
      trials.map((t) => [t.provider, (t.details.proxy as { kind: string }).kind]),
    );
    expect(kinds).toEqual({
      alpha: 'openai-compatible',
      beta: 'anthropic',
      gamma: 'openai-compatible',
    });
    // alpha declares concurrency 1 (one request slot): its requests never overlapped at the
    // provider, though four trials ran at once (each request's span from the trial's cassette:
    // when it went upstream, and for how long).
    const spans = trials
      .filter((t) => t.provider === 'alpha')
      .flatMap((t) => loadCassette(join(t.artifacts_dir!, CASSETTE_FILE)).exchanges)
      .map((x) => [Date.parse(x.sent_at!), Date.parse(x.sent_at!) + x.total_ms])
      .sort((a, b) => a[0] - b[0]);
    expect(spans.length).toBeGreaterThanOrEqual(6); // three requests a trial
    // Its two agents did run at once (1.5 agents per request slot, rounded up: two).
    const agents = trials
      .filter((t) => t.provider === 'alpha')
      .map((t) => {
        const start = Date.parse(t.details.agent_started_at as string);
        return [start, start + (t.details.phase_ms as { agent: number }).agent];
      })
      .sort((a, b) => a[0] - b[0]);
    expect(agents[1][0]).toBeLessThan(agents[0][1]);
    for (let i = 1; i < spans.length; i++)
      expect(spans[i][0]).toBeGreaterThanOrEqual(spans[i - 1][1] - 1); // 1 ms: rounding
  });

  it('the report, runs and the leaderboard show one row per (provider, model)', async () => {
    const report = await nanobenchAwait(['report', runId, '--db', db, '--json']);
    expect(report.code, report.stderr).toBe(0);
    const models = JSON.parse(report.stdout).report.models.map(
      (m: { provider: string; model: string }) => `${m.provider}/${m.model}`,
    );
    expect(models).toEqual(['alpha/solver', 'beta/solver', 'gamma/idler']);
    const md = await nanobenchAwait(['report', runId, '--db', db]);
    expect(md.stdout).toMatch(/alpha\/solver/);
    expect(md.stdout).toMatch(/beta\/solver/);
    const runs = await nanobenchAwait(['runs', '--db', db, '--json']);
    expect(JSON.parse(runs.stdout)[0]).toMatchObject({
      providers: ['alpha', 'beta', 'gamma'],
      models: ['alpha/solver', 'beta/solver', 'gamma/idler'],
    });
    const lb = await nanobenchAwait(['leaderboard', '--db', db, '--json']);
    const board = JSON.parse(lb.stdout) as Leaderboard;
    expect(board.rows.map((r) => `${r.rank}${r.tied ? '=' : ''} ${r.provider}/${r.model}`)).toEqual(
      // 2/2 against 0/2 on one task: their 95% intervals overlap, so nothing separates them.
      ['1 alpha/solver', '1= beta/solver', '1= gamma/idler'],
    );
    expect(board.rows[2].versus_above).toMatchObject({
      rule: 'overlap',
      shared_tasks: 1,
      separated: false,
    });
    // Priced providers have a cost per trial and per solved task; gamma has no price.
    const [alpha, beta, gamma] = board.rows;
    expect(alpha.usage.cost_per_trial_usd).toBeGreaterThan(0);
    expect(beta.usage.cost_per_solved_usd).toBeCloseTo(
      beta.usage.cost_per_trial_usd ?? Number.NaN,
      12,
    );
    expect(gamma.usage.cost_per_trial_usd).toBeNull();
  });

  it('a matrix file runs its pairs; compare shows the token and cost deltas beside the score', async () => {
    const matrix = join(dir, 'matrix.json');
    writeFileSync(
      matrix,
      JSON.stringify({
        models: [
          { provider: 'alpha', model: 'solver' },
          { provider: 'gamma', model: 'idler' },
        ],
        modes: ['hinted'],
        runs: 1,
      }),
    );
    const args = ['run', 'examples', '--task', 'textkit-001', '--agent', 'nanocoder'];
    const r = await nanobenchAwait(
      [...args, '--matrix', matrix, '--providers-config', providers, '--db', db, '--json'],
      env,
    );
    expect(r.code, r.stderr).toBe(0);
    const second = JSON.parse(r.stdout).run_id as string;
    const store = Store.open(db, { readonly: true });
    const config = store.getRun(second)!.config;
    store.close();
    expect(config.models).toEqual([
      { provider: 'alpha', model: 'solver' },
      { provider: 'gamma', model: 'idler' },
    ]);
    expect(config).toMatchObject({ runs: 1, matrix: { file: matrix, runs: 1 } });
    const json = await nanobenchAwait(['compare', runId, second, '--db', db, '--json']);
    expect(json.code, json.stderr).toBe(0);
    const groups = JSON.parse(json.stdout).groups as {
      provider: string;
      usage: { base: UsageSummary; candidate: UsageSummary; delta: { tokens_per_trial: number } };
    }[];
    const alpha = groups.find((g) => g.provider === 'alpha')!;
    // The same scripted steps on both sides: the same tokens per trial, a price from alpha's.
    expect(alpha.usage.base.tokens_per_trial).toBeGreaterThan(0);
    expect(alpha.usage.delta.tokens_per_trial).toBeCloseTo(0, 6);
    expect(alpha.usage.candidate.cost_per_solved_usd).toBeGreaterThan(0);
    expect(groups.find((g) => g.provider === 'gamma')!.usage.base.cost_per_trial_usd).toBeNull();
    const md = await nanobenchAwait(['compare', runId, second, '--db', db]);
    expect(md.stdout).toContain(
      '| tokens / trial (Δ) | cost / trial (Δ) | cost / solved trial (Δ) |',
    );
    expect(md.stdout).toMatch(
      /\| alpha\/solver \|.*\| \S+ → \S+ \(±0\) \| \$\S+ → \$\S+ \(±\$0\) \|/,
    );
  });

  it('a pair its provider refuses stops the run at the preflight, naming it; nothing stored', async () => {
    const other = join(dir, 'refused.sqlite');
    const r = await nanobenchAwait(
      [
        ...trialsArgs,
        ...['--model', 'alpha:solver,gamma:unpaid', '--providers-config', providers, '--db', other],
      ],
      env,
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /preflight: provider "gamma", model "unpaid": HTTP 402 \(provider\/billing/,
    );
    expect(r.stderr).toContain('nothing was run');
  });
});
