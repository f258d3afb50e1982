import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScript } from '../../src/provider/script-schema.js';
import { type ScriptedServer, startScriptedServer } from '../../src/provider/scripted-server.js';
import { Store, type TrialRecord } from '../../src/store/store.js';
import { type CliResult, nanobenchAwait, tempDir } from '../helpers/cli.js';
import { type StandIn, startStandIn } from './stand-in-upstream.js';

const KEY = 'sk-NANOBENCH-FAKE-KEY-e2e-5d1c9a7b3f';
const KEY_ENV = 'NB_E2E_FAKE_PROVIDER_KEY';
const MODEL = 'stand-in-model';

// textkit-001's fix, as a script. `env` would show the key in a tool result had it leaked into
// the agent's environment.
const script = parseScript(
  {
    model: MODEL,
    tasks: {
      '*': {
        steps: [
          { tool: 'execute_bash', args: { command: 'env' } },
          { tool: 'read_file', args: { path: 'src/truncate.js' } },
          {
            tool: 'string_replace',
            args: {
              path: 'src/truncate.js',
              old_str: '\n  let cut = text.slice(0, maxLength);\n',
              new_str:
                '  if (ellipsis.length >= maxLength) return ellipsis.slice(0, maxLength);\n\n  let cut = text.slice(0, maxLength - ellipsis.length);\n',
            },
          },
          { final: 'The ellipsis now counts towards maxLength.' },
        ],
      },
    },
  },
  'proxy e2e script',
);

const cli = nanobenchAwait;

/** The part of details.proxy these tests read. */
interface ProxyDetails {
  upstream: string;
  tokens: { input: number; output: number; total: number };
  cost_usd: number | null;
  temperature_sent: number | null | 'mixed';
  replay?: Record<string, unknown>;
  budget_exceeded?: Record<string, unknown>;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : e.isFile() ? [p] : [];
  });
}

function onlyTrial(db: string, runId: string): TrialRecord {
  const store = Store.open(db);
  try {
    const trials = store.trials(runId);
    expect(trials).toHaveLength(1);
    return trials[0];
  } finally {
    store.close();
  }
}

describe('provider proxy through the CLI and the real Nanocoder', () => {
  const dir = tempDir('nb-proxy-e2e-');
  const db = path.join(dir, 'results.sqlite');
  const config = path.join(dir, 'providers.json');
  const base = ['run', 'examples', '--task', 'textkit-001', '--agent', 'nanocoder', '--json'];
  const outputs: CliResult[] = [];
  let scripted: ScriptedServer;
  let standIn: StandIn;
  let recorded: TrialRecord;

  beforeAll(async () => {
    scripted = await startScriptedServer([script]);
    standIn = await startStandIn({
      failFirst: 429,
      rejectTemperature: true,
      forwardTo: scripted.url,
    });
    const provider = {
      name: 'standin',
      base_url: standIn.baseUrl,
      api_key_env: KEY_ENV,
      price_per_million: { input: 1, output: 2 },
      models: [MODEL],
    };
    writeFileSync(config, JSON.stringify({ providers: [provider] }));
  });
  afterAll(async () => {
    await standIn.close();
    await scripted.close();
  });

  const withKey = { [KEY_ENV]: KEY };
  const declared = ['--provider', 'standin', '--model', MODEL, '--providers-config', config];

  it('preflight: a missing key variable is a user error before any trial', async () => {
    const r = await cli([...base, ...declared, '--db', path.join(dir, 'pre.sqlite')]);
    outputs.push(r);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`environment variable ${KEY_ENV} is not set`));
    expect(standIn.seen).toHaveLength(0);
    const store = Store.open(path.join(dir, 'pre.sqlite'));
    expect(store.listRuns()).toEqual([]); // nothing recorded
    store.close();
  });

  it('preflight: a bad providers file names file and field; an undeclared provider says how', async () => {
    const bad = path.join(dir, 'bad-providers.json');
    writeFileSync(bad, JSON.stringify({ providers: [{ name: 'x', base_url: 'ftp://h' }] }));
    const pre = path.join(dir, 'pre.sqlite');
    const r = await cli(
      [...base, '--provider', 'x', '--model', MODEL, '--providers-config', bad].concat([
        '--db',
        pre,
      ]),
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${bad}: field "providers.0.base_url"`);
    const u = await cli([...base, '--provider', 'openai', '--model', MODEL, '--db', pre]);
    expect(u.code).toBe(2);
    expect(u.stderr).toMatch(/provider "openai" is not declared: pass --providers-config FILE/);
  });

  it('records a trial: key upstream only, temperature refused -> non_deterministic, retries, usage and cost', async () => {
    const r = await cli([...base, ...declared, '--db', db], withKey);
    outputs.push(r);
    expect(r.code, r.stderr).toBe(0);
    const run = JSON.parse(r.stdout);
    recorded = onlyTrial(db, run.run_id);
    expect(recorded).toMatchObject({ status: 'scored', label: 'pass', score: 1 });
    expect(recorded.files_changed).toEqual(['src/truncate.js']);
    expect(recorded.flags).toContain('non_deterministic');
    const proxy = recorded.details.proxy as ProxyDetails;
    expect(proxy).toMatchObject({
      provider: 'standin',
      requests: 5, // 4 turns + Nanocoder's silent retry after the 429
      retries: 1,
      errors: { '429': 1 },
      upstream_requests: 6, // + the second one again without temperature 0, refused
      temperature_sent: 'mixed', // 0 on the request answered 429, none after the refusal
      non_deterministic: true,
      usage_missing: 0,
    });
    expect(proxy.tokens.input).toBeGreaterThan(0);
    expect(proxy.cost_usd).toBeGreaterThan(0);
    // The upstream did get the real key, and the temperature first: the run's preflight (one
    // non-streamed request through the same proxy), then the trial's first request.
    expect(standIn.seen[0].body.stream).toBeUndefined();
    expect(standIn.seen[1].authorization).toBe(`Bearer ${KEY}`);
    expect(standIn.seen[1].body.temperature).toBe(0);
    expect(standIn.seen.every((s) => s.authorization === `Bearer ${KEY}`)).toBe(true);
  });

  it('a recorded trial replays to the same outcome without provider or key', async () => {
    await standIn.close();
    const before = scripted.requests.length;
    const r = await cli([
      ...base,
      '--provider',
      'standin',
      '--model',
      MODEL,
      '--replay',
      path.join(dir, 'artifacts'),
      '--db',
      path.join(dir, 'replay.sqlite'),
    ]);
    outputs.push(r);
    expect(r.code, r.stderr).toBe(0);
    const replayed = onlyTrial(path.join(dir, 'replay.sqlite'), JSON.parse(r.stdout).run_id);
    expect(scripted.requests.length).toBe(before);
    for (const k of ['status', 'label', 'score', 'files_changed', 'exit_kind'] as const)
      expect(replayed[k]).toEqual(recorded[k]);
    const proxy = replayed.details.proxy as ProxyDetails;
    expect(proxy.upstream).toBe('replay');
    expect(proxy.replay).toMatchObject({ recorded_requests: 5, exhausted: false });
    expect(proxy).toMatchObject({ retries: 1, errors: { '429': 1 } }); // replayed by turn
    expect(proxy.tokens).toEqual((recorded.details.proxy as ProxyDetails).tokens);
  });

  it('a token budget ends the trial as context_window_exceeded, naming the budget', async () => {
    const open = await startStandIn({ forwardTo: scripted.url });
    try {
      const cfg = path.join(dir, 'budget-providers.json');
      const p = { name: 'standin', base_url: open.baseUrl, api_key_env: KEY_ENV };
      writeFileSync(cfg, JSON.stringify({ providers: [p] }));
      const budgetDb = path.join(dir, 'budget.sqlite');
      const r = await cli(
        [...base, '--provider', 'standin', '--model', MODEL, '--providers-config', cfg].concat([
          '--token-budget',
          '10',
          '--db',
          budgetDb,
        ]),
        withKey,
      );
      outputs.push(r);
      expect(r.code, r.stderr).toBe(0);
      const t = onlyTrial(budgetDb, JSON.parse(r.stdout).run_id);
      expect(t).toMatchObject({ label: 'context_window_exceeded', exit_kind: 'context_exceeded' });
      expect(t.flags).toContain('budget_exceeded');
      const proxy = t.details.proxy as ProxyDetails;
      expect(proxy.budget_exceeded).toMatchObject({ budget: 'tokens', limit: 10 });
      expect(proxy.temperature_sent).toBe(0);
      // The run's preflight, then the trial's first request; the second never left the proxy.
      expect(open.seen.map((s) => s.body.stream === true)).toEqual([false, true]);
    } finally {
      await open.close();
    }
  });

  it('the key appears in nothing written: database, artifacts, cassettes, stdout, stderr', () => {
    const files = filesUnder(dir);
    expect(files.some((f) => f.endsWith('cassette.jsonl'))).toBe(true);
    const leaks = files.filter((f) => statSync(f).size && readFileSync(f).includes(KEY));
    expect(leaks).toEqual([]);
    for (const o of outputs) expect(o.stdout + o.stderr).not.toContain(KEY);
    expect(outputs.length).toBe(4);
  });
});
