import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KINDS, type ProviderKind } from '../../src/provider/kinds.js';
import { parseScript } from '../../src/provider/script-schema.js';
import { type ScriptedServer, startScriptedServer } from '../../src/provider/scripted-server.js';
import { Store, type TrialRecord } from '../../src/store/store.js';
import { type CliResult, nanobenchAwait, tempDir } from '../helpers/cli.js';
import { validateAgainst } from '../helpers/json-schema.js';
import { makeCerts } from '../helpers/tls.js';
import { type StandInProxy, startStandInProxy } from './stand-in-http-proxy.js';

const KEY = 'sk-NANOBENCH-FAKE-KEY-kinds-7c3e1a9b5d';
const KEY_ENV = 'NB_E2E_KINDS_FAKE_KEY';
const GEMINI_HOST = 'generativelanguage.test';

/** Provider name, model (cassettes are found by model) and the credential header per kind. */
const CASES: Record<
  ProviderKind,
  { provider: string; model: string; sdkProvider: string; credential: [string, string] }
> = {
  'openai-compatible': {
    provider: 'compat',
    model: 'kinds-compat',
    sdkProvider: 'openai-compatible',
    credential: ['authorization', `Bearer ${KEY}`],
  },
  anthropic: {
    provider: 'claude',
    model: 'kinds-claude',
    sdkProvider: 'anthropic',
    credential: ['x-api-key', KEY],
  },
  google: {
    provider: 'gemini',
    model: 'kinds-gemini',
    sdkProvider: 'google',
    credential: ['x-goog-api-key', KEY],
  },
  'openai-responses': {
    provider: 'openai',
    model: 'kinds-responses',
    sdkProvider: 'chatgpt-codex',
    credential: ['authorization', `Bearer ${KEY}`],
  },
};
const ALL = Object.keys(CASES) as ProviderKind[];

// textkit-001's fix. `env` would show the key in a tool result had it leaked to the agent.
const steps = [
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
];
const scripts = [
  ...ALL.map((k) =>
    parseScript({ model: CASES[k].model, tasks: { '*': { steps } } }, `kinds e2e ${k}`),
  ),
  // Failures in the native formats: Anthropic's 500, Gemini's context-length 400.
  parseScript(
    { model: 'kinds-claude-down', tasks: { '*': { steps: [{ fail: 'server_error' }] } } },
    'down',
  ),
  parseScript(
    {
      model: 'kinds-gemini-full',
      tasks: { '*': { steps: [steps[1], { fail: 'context_http' }] } },
    },
    'full',
  ),
];
const EXTRA_MODELS: Partial<Record<ProviderKind, string[]>> = {
  anthropic: ['kinds-claude-down'],
  google: ['kinds-gemini-full'],
};

const cli = nanobenchAwait;

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

interface ProxyDetails {
  kind: string;
  upstream: string;
  requests: number;
  tokens: { input: number; output: number; total: number };
  usage_missing: number;
  cost_usd: number | null;
  temperature_sent: number | null | 'mixed';
  non_deterministic: boolean;
  replay?: Record<string, unknown>;
}

describe('every provider kind through the CLI, the proxy and the real Nanocoder', () => {
  const dir = tempDir('nb-kinds-e2e-');
  const db = path.join(dir, 'results.sqlite');
  const config = path.join(dir, 'providers.json');
  const outputs: CliResult[] = [];
  const recorded = new Map<ProviderKind, TrialRecord>();
  const runIds = new Map<ProviderKind, string>();
  let plain: ScriptedServer;
  let tls: ScriptedServer;
  let corporate: StandInProxy;
  let caFile: string;

  beforeAll(async () => {
    const certs = makeCerts(dir, GEMINI_HOST);
    caFile = certs.caFile;
    plain = await startScriptedServer(scripts);
    tls = await startScriptedServer(scripts, { tls: { key: certs.key, cert: certs.cert } });
    corporate = await startStandInProxy({
      hosts: { [GEMINI_HOST]: Number(new URL(tls.url).port) },
    });
    const providers = ALL.map((kind) => ({
      name: CASES[kind].provider,
      kind,
      base_url:
        kind === 'google' ? `https://${GEMINI_HOST}/v1beta` : `${plain.url}/${KINDS[kind].version}`,
      api_key_env: KEY_ENV,
      price_per_million: { input: 1, output: 2 },
      models: [CASES[kind].model, ...(EXTRA_MODELS[kind] ?? [])],
    }));
    writeFileSync(config, JSON.stringify({ providers }));
  });
  afterAll(async () => {
    await corporate.close();
    await tls.close();
    await plain.close();
  });

  const base = ['run', 'examples', '--task', 'textkit-001', '--agent', 'nanocoder', '--json'];
  const env = () => ({ [KEY_ENV]: KEY, HTTPS_PROXY: corporate.url, NODE_EXTRA_CA_CERTS: caFile });

  it.each(ALL)(
    '%s: scored, usage and temperature recorded, the key only in its header upstream',
    async (kind) => {
      const c = CASES[kind];
      const r = await cli(
        [
          ...base,
          '--provider',
          c.provider,
          '--model',
          c.model,
          '--providers-config',
          config,
        ].concat(['--db', db]),
        env(),
      );
      outputs.push(r);
      expect(r.code, r.stderr).toBe(0);
      const t = onlyTrial(db, JSON.parse(r.stdout).run_id);
      recorded.set(kind, t);
      runIds.set(kind, JSON.parse(r.stdout).run_id);
      expect(t, t.error ?? '').toMatchObject({
        status: 'scored',
        label: 'pass',
        score: 1,
        exit_kind: 'success',
      });
      expect(t.files_changed).toEqual(['src/truncate.js']);
      expect(t.details.agent_meta).toMatchObject({
        providerKind: kind,
        sdkProvider: c.sdkProvider,
      });
      const proxy = t.details.proxy as ProxyDetails;
      expect(proxy).toMatchObject({
        kind,
        requests: 4,
        usage_missing: 0,
        temperature_sent: 0,
        non_deterministic: false,
      });
      expect(proxy.tokens.input).toBeGreaterThan(1000); // Nanocoder's system prompt and tools
      expect(proxy.tokens.output).toBeGreaterThan(0);
      expect(proxy.cost_usd).toBeCloseTo(
        (proxy.tokens.input * 1 + proxy.tokens.output * 2) / 1e6,
        9,
      );
      expect(t.flags).not.toContain('non_deterministic');
      // What the stand-in upstream got: the format, the key in the API's header, temperature 0.
      const server = kind === 'google' ? tls : plain;
      // First the run's preflight (one non-streamed request through the same proxy path), then
      // the trial's four.
      const seen = server.requests.filter((q) => q.model === c.model);
      expect(seen).toHaveLength(5);
      const preflight = seen[0].body as Record<string, unknown>;
      expect(
        kind === 'google' ? seen[0].path.endsWith(':generateContent') : !preflight.stream,
      ).toBe(true);
      for (const q of seen) {
        expect(q.kind).toBe(kind);
        expect(q.credentials).toEqual(Object.fromEntries([c.credential]));
        const body = q.body as Record<string, Record<string, unknown>>;
        expect(kind === 'google' ? body.generationConfig.temperature : body.temperature).toBe(0);
      }
      if (kind === 'google') {
        // Through the corporate proxy: a tunnel to the declared name, nothing readable in it.
        expect(corporate.seen.map((s) => [s.method, s.target])).toEqual(
          seen.map(() => ['CONNECT', `${GEMINI_HOST}:443`]),
        );
        expect(seen.slice(1).every((q) => q.query === 'alt=sse')).toBe(true);
      }
    },
  );

  it.each(ALL)(
    '%s: report --format json carries the trial telemetry, valid per the schema',
    async (kind) => {
      const r = await cli(['report', runIds.get(kind)!, '--db', db, '--format', 'json']);
      outputs.push(r);
      expect(r.code, r.stderr).toBe(0);
      const doc = JSON.parse(r.stdout);
      expect(validateAgainst('results.schema.json', doc)).toEqual([]);
      const proxy = recorded.get(kind)!.details.proxy as ProxyDetails;
      expect(doc.trials[0]).toMatchObject({
        provider_kind: kind,
        tokens: proxy.tokens,
        usage_missing: 0,
        requests: 4,
        retries: 0,
        latency_ms: { total_sum: expect.any(Number) },
        temperature_sent: 0,
        non_deterministic: false,
        cost_usd: proxy.cost_usd,
        tool_calls: {
          total: 3,
          failed: 0,
          by_tool: { execute_bash: 1, read_file: 1, string_replace: 1 },
        },
        files_read: { count: 1, paths: ['src/truncate.js'], required: ['src/truncate.js'] },
      });
      expect(doc.trials[0].files_read.bytes).toBeGreaterThan(100);
      expect(doc.report.reading.models[0]).toMatchObject({ trials: 1, files_read_mean: 1 });
    },
  );

  it.each(ALL)(
    '%s: the recorded trial replays to the same outcome, no upstream, no key',
    async (kind) => {
      const c = CASES[kind];
      const before = plain.requests.length + tls.requests.length;
      const replayDb = path.join(dir, `replay-${kind}.sqlite`);
      const r = await cli(
        [...base, '--provider', c.provider, '--model', c.model].concat([
          '--replay',
          path.join(dir, 'artifacts'),
          '--db',
          replayDb,
        ]),
      );
      outputs.push(r);
      expect(r.code, r.stderr).toBe(0);
      const t = onlyTrial(replayDb, JSON.parse(r.stdout).run_id);
      const rec = recorded.get(kind)!;
      for (const k of ['status', 'label', 'score', 'files_changed', 'exit_kind'] as const)
        expect(t[k]).toEqual(rec[k]);
      expect(t.details.agent_meta).toMatchObject({ sdkProvider: c.sdkProvider });
      const proxy = t.details.proxy as ProxyDetails;
      expect(proxy).toMatchObject({ kind, upstream: 'replay', temperature_sent: 0 });
      expect(proxy.replay).toMatchObject({ recorded_requests: 4, diverged_requests: 0 });
      expect(proxy.tokens).toEqual((rec.details.proxy as ProxyDetails).tokens);
      expect(plain.requests.length + tls.requests.length).toBe(before);
    },
  );

  it("each format's failures: Anthropic's 500 is a provider infra error, Gemini's context error ends the trial", async () => {
    const down = await cli(
      [
        ...base,
        '--provider',
        'claude',
        '--model',
        'kinds-claude-down',
        '--providers-config',
        config,
      ].concat(['--db', path.join(dir, 'down.sqlite')]),
      env(),
    );
    outputs.push(down);
    // A run whose only trial is an infra error exits 1 and says why.
    expect(down.code, down.stderr).toBe(1);
    const t = onlyTrial(path.join(dir, 'down.sqlite'), JSON.parse(down.stdout).run_id);
    expect(t).toMatchObject({
      status: 'error',
      score: null,
      error_stage: 'provider',
      error_code: 'server_error',
    });
    expect((t.details.proxy as ProxyDetails).kind).toBe('anthropic');

    const full = await cli(
      [
        ...base,
        '--provider',
        'gemini',
        '--model',
        'kinds-gemini-full',
        '--providers-config',
        config,
      ].concat(['--db', path.join(dir, 'full.sqlite')]),
      env(),
    );
    outputs.push(full);
    expect(full.code, full.stderr).toBe(0);
    const f = onlyTrial(path.join(dir, 'full.sqlite'), JSON.parse(full.stdout).run_id);
    expect(f).toMatchObject({
      status: 'scored',
      label: 'context_window_exceeded',
      exit_kind: 'context_exceeded',
      files_changed: [],
    });
    expect(f.details.proxy).toMatchObject({
      kind: 'google',
      last_error: { status: 400, class: 'context_length' },
    });
  });

  it('the key appears in nothing written: database, artifacts, cassettes, stdout, stderr', () => {
    const files = filesUnder(dir).filter((f) => !f.endsWith('.key') && !f.endsWith('.pem'));
    expect(files.filter((f) => f.endsWith('cassette.jsonl')).length).toBeGreaterThanOrEqual(4);
    const leaks = files.filter((f) => statSync(f).size && readFileSync(f).includes(KEY));
    expect(leaks).toEqual([]);
    for (const o of outputs) expect(o.stdout + o.stderr).not.toContain(KEY);
    expect(outputs).toHaveLength(14);
  });
});
