// Issue 22 §2: a provider that refuses service. The scripted model server answers with each
// refusal (401, 402, 403, 404, 429, 5xx) in every wire format, a whole model can refuse every
// request (`refuse`), and the run's preflight reads the refusal through the same proxy the
// trials use. The same rows end to end through the real Nanocoder: test/e2e/provider-refusals.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { refusalIn } from '../../src/agent/nanocoder-exit.js';
import { unscriptedTasks } from '../../src/provider/endpoints.js';
import { KINDS, keyHeader, type ProviderKind } from '../../src/provider/kinds.js';
import {
  describePreflight,
  type PreflightTarget,
  preflightOne,
  preflightRequest,
  stopsTheRun,
} from '../../src/provider/preflight.js';
import { type ProviderProxy, startProxy } from '../../src/provider/proxy.js';
import { parseScript } from '../../src/provider/script-schema.js';
import { type ScriptedServer, startScriptedServer } from '../../src/provider/scripted-server.js';
import type { TrialSpec } from '../../src/run/plan.js';
import { parseErrorCauses } from '../../src/run/session.js';

const KINDS_UNDER_TEST = Object.keys(KINDS) as ProviderKind[];

const steps = parseScript(
  {
    model: 'steps',
    tasks: {
      auth: { steps: [{ fail: 'auth' }] },
      forbidden: { steps: [{ fail: 'forbidden' }] },
      billing: { steps: [{ fail: 'billing' }] },
      model_not_found: { steps: [{ fail: 'model_not_found' }] },
      rate_limit: { steps: [{ fail: 'rate_limit', retry_after_sec: 7 }] },
      server_error: { steps: [{ fail: 'server_error' }] },
    },
  },
  'steps',
);
const refusing = (model: string, refuse: string) => parseScript({ model, refuse }, model);
const scripts = [
  steps,
  refusing('no-key', 'auth'),
  refusing('no-model', 'model_not_found'),
  refusing('busy', 'rate_limit'),
];

let server: ScriptedServer;
let proxy: ProviderProxy;
beforeAll(async () => {
  server = await startScriptedServer(scripts);
  proxy = await startProxy();
});
afterAll(async () => {
  await proxy.close();
  await server.close();
});

const upstream = (baseUrl: string, kind: ProviderKind) => ({
  provider: 'scripted',
  kind,
  baseUrl,
  acceptsTemperature: true,
  supportsStreamUsage: true,
  temperature: 0,
  headers: {},
});

/** One request of `kind` for task `task` through a proxy trial; the proxy's account after it. */
async function throughProxy(kind: ProviderKind, model: string, task: string) {
  const trial = proxy.openTrial({
    provider: 'scripted',
    model,
    upstream: upstream(server.baseUrlFor(task, 1, kind), kind),
  });
  const req = preflightRequest(kind, model);
  const [name, value] = keyHeader(KINDS[kind].auth, trial.apiKey);
  const res = await fetch(`${trial.baseUrl}/${req.path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [name]: value, ...req.headers },
    body: JSON.stringify(req.body),
  });
  await res.text();
  const last = (
    trial.finish().details as { last_error?: { status: number; message: string; class: string } }
  ).last_error;
  return { res, last };
}

describe('the scripted model server refuses service in every format', () => {
  const ROWS = [
    ['auth', 401, 'auth'],
    ['forbidden', 403, 'auth'],
    ['billing', 402, 'billing'],
    ['model_not_found', 404, 'model_not_found'],
    ['rate_limit', 429, 'rate_limited'],
    ['server_error', 500, 'server_error'],
  ] as const;
  for (const kind of KINDS_UNDER_TEST)
    it.each(ROWS)(
      `${kind}: fail "%s" is HTTP %i, read by the proxy as provider/%s`,
      async (task, status, code) => {
        const { res, last } = await throughProxy(kind, 'steps', task);
        expect(res.status).toBe(status);
        expect(last?.status).toBe(status);
        expect(refusalIn(last!)).toBe(code);
      },
    );

  it('a fail step says how long to wait before retrying (retry-after)', async () => {
    const { res } = await throughProxy('openai-compatible', 'steps', 'rate_limit');
    expect(res.headers.get('retry-after')).toBe('7');
  });

  it('a model that refuses answers every request so, the preflight route too', async () => {
    for (const base of [server.baseUrlFor('any-task', 3), server.preflightUrl()]) {
      const res = await fetch(`${base}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'no-key', messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(res.status).toBe(401);
      expect((await res.json()).error.code).toBe('invalid_api_key');
    }
    // A model that does not refuse answers the preflight with a short final reply.
    const ok = await fetch(`${server.preflightUrl()}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'steps', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(ok.status).toBe(200);
    expect((await ok.json()).choices[0].message.content).toBe('OK');
  });
});

describe('the preflight', () => {
  const target = (model: string, kind: ProviderKind = 'openai-compatible'): PreflightTarget => ({
    provider: 'scripted',
    model,
    keyFix: 'set KEY',
    options: {
      provider: 'scripted',
      model,
      upstream: upstream(server.preflightUrl(kind), kind),
    },
  });

  it.each(KINDS_UNDER_TEST)('%s: a model served passes, in one request', async (kind) => {
    const before = server.requests.length;
    const r = await preflightOne(proxy, target('steps', kind));
    expect(r).toMatchObject({ status: 200, message: 'answered' });
    expect(r.refusal).toBeUndefined();
    expect(server.requests.slice(before)).toMatchObject([{ preflight: true, status: 200 }]);
  });

  it('a refused key or a model that does not exist stops the run: one line with status and fix', async () => {
    const key = await preflightOne(proxy, target('no-key'));
    expect(key).toMatchObject({ status: 401, refusal: 'auth' });
    expect(stopsTheRun(key)).toBe(true);
    expect(describePreflight(key, target('no-key'))).toMatch(
      /^provider "scripted", model "no-key": HTTP 401 \(provider\/auth: the provider refused the key\): Incorrect API key provided \(scripted\); fix: set KEY$/,
    );
    const model = await preflightOne(proxy, target('no-model', 'anthropic'));
    expect(model).toMatchObject({ status: 404, refusal: 'model_not_found' });
    expect(describePreflight(model, target('no-model'))).toMatch(
      /HTTP 404 .*fix: check the model name "no-model" \(--model\)/,
    );
  });

  it('a rate limit is tried again, then lets the run go on', async () => {
    const before = server.requests.length;
    const r = await preflightOne(proxy, target('busy'));
    expect(r).toMatchObject({ status: 429, refusal: 'rate_limited' });
    expect(stopsTheRun(r)).toBe(false);
    expect(server.requests.length - before).toBe(3);
  });

  it('a provider that does not answer passes, saying so', async () => {
    const silent: PreflightTarget = {
      ...target('steps'),
      options: {
        provider: 'x',
        model: 'm',
        upstream: upstream('http://127.0.0.1:1/v1', 'openai-compatible'),
      },
    };
    const r = await preflightOne(proxy, silent, 2000);
    expect(r.status).toBe(0);
    expect(r.failure).toMatch(/ECONNREFUSED/);
    expect(stopsTheRun(r)).toBe(false);
  });
});

describe('planning a scripted run', () => {
  const spec = (model: string, task: string) =>
    ({ provider: 'scripted', model, task: { task: { task_id: task } } }) as unknown as TrialSpec;
  it('names each scripted model that has no script for a planned task', () => {
    const fallback = parseScript({ model: 'any', tasks: { '*': { steps: [] } } }, 'any');
    const plan = [
      spec('steps', 'auth'),
      spec('steps', 'textkit-001'),
      spec('steps', 'textkit-001'),
      spec('any', 'textkit-001'),
      spec('no-key', 'textkit-001'),
    ];
    expect(unscriptedTasks([...scripts, fallback], plan)).toEqual([
      { model: 'steps', task: 'textkit-001' },
    ]);
  });
});

describe('--retry-errors causes', () => {
  it('takes stages and stage/code pairs, and refuses anything else in one line', () => {
    expect(parseErrorCauses('provider, task/no_report')).toEqual([
      { stage: 'provider' },
      { stage: 'task', code: 'no_report' },
    ]);
    expect(() => parseErrorCauses('providers')).toThrow(/"providers" is not a cause; give a stage/);
    expect(() => parseErrorCauses(',')).toThrow(/name at least one cause/);
  });
});
