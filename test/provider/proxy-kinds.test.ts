// The provider proxy in each wire format Nanocoder speaks (src/provider/kinds.ts), against the
// scripted model server speaking the same format: requests shaped as each AI SDK client sends
// them, the key in the header each API expects, temperature pinned where the API keeps it, usage
// read from each format's stream, failures classified, budgets answered, cassettes recorded and
// replayed. The real binary speaking each format is in proxy-kinds-cli.test.ts.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CassetteHeader, loadCassette } from '../../src/provider/cassette.js';
import { KINDS, type ProviderKind } from '../../src/provider/kinds.js';
import {
  type ProviderProxy,
  type ProxyTrial,
  startProxy,
  type TrialOptions,
} from '../../src/provider/proxy.js';
import { parseScript } from '../../src/provider/script-schema.js';
import { type ScriptedServer, startScriptedServer } from '../../src/provider/scripted-server.js';
import { replyFacts } from '../../src/provider/usage.js';

const KEY = 'sk-FAKE-kinds-test-9f8e7d6c5b4a';
const KINDS_UNDER_TEST = Object.keys(KINDS) as ProviderKind[];

const script = parseScript(
  {
    model: 'm',
    tasks: {
      ok: {
        steps: [{ tool: 'read_file', args: { path: 'a.txt' } }, { final: 'All done here.' }],
      },
      rate_limit: { steps: [{ fail: 'rate_limit' }] },
      quota: { steps: [{ fail: 'quota' }] },
      context_http: { steps: [{ fail: 'context_http' }] },
      context_stream: { steps: [{ fail: 'context_stream' }] },
      server_error: { steps: [{ fail: 'server_error' }] },
    },
  },
  'kinds test',
);

type Body = Record<string, unknown>;

/** The credential headers each API gets. */
const CREDENTIALS: Record<ProviderKind, Record<string, string>> = {
  'openai-compatible': { authorization: `Bearer ${KEY}` },
  anthropic: { 'x-api-key': KEY },
  google: { 'x-goog-api-key': KEY },
  'openai-responses': { authorization: `Bearer ${KEY}` },
};

/** A request as each kind's client builds it: path, headers, body (turns = assistant turns). */
interface ClientRequest {
  url: string;
  headers: Record<string, string>;
  body: Body;
}

function clientRequest(
  kind: ProviderKind,
  t: Pick<ProxyTrial, 'baseUrl' | 'apiKey'>,
  turns = 0,
): ClientRequest {
  const key = t.apiKey;
  switch (kind) {
    case 'openai-compatible': {
      const messages: Body[] = [{ role: 'user', content: 'go' }];
      for (let i = 0; i < turns; i++)
        messages.push(
          { role: 'assistant', content: '', tool_calls: [{ function: { name: 'read_file' } }] },
          { role: 'tool', tool_call_id: 'c', content: 'x' },
        );
      return {
        url: `${t.baseUrl}/chat/completions`,
        headers: { authorization: `Bearer ${key}` },
        body: { model: 'm', messages, stream: true, temperature: 0.7 } as Body,
      };
    }
    case 'anthropic': {
      const messages: Body[] = [{ role: 'user', content: [{ type: 'text', text: 'go' }] }];
      for (let i = 0; i < turns; i++)
        messages.push(
          { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'read_file' }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'x' }] },
        );
      return {
        url: `${t.baseUrl}/messages`,
        headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        body: { model: 'm', max_tokens: 100, messages, stream: true, temperature: 0.7 } as Body,
      };
    }
    case 'google': {
      const contents: Body[] = [{ role: 'user', parts: [{ text: 'go' }] }];
      for (let i = 0; i < turns; i++)
        contents.push(
          { role: 'model', parts: [{ functionCall: { name: 'read_file', args: {} } }] },
          { role: 'user', parts: [{ functionResponse: { name: 'read_file', response: {} } }] },
        );
      return {
        url: `${t.baseUrl}/models/m:streamGenerateContent?alt=sse`,
        headers: { 'x-goog-api-key': key },
        body: { generationConfig: { temperature: 0.7, maxOutputTokens: 50 }, contents } as Body,
      };
    }
    case 'openai-responses': {
      const input: Body[] = [{ role: 'user', content: 'go' }];
      for (let i = 0; i < turns; i++)
        input.push(
          { type: 'function_call', call_id: 'c', name: 'read_file', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c', output: 'x' },
        );
      return {
        url: `${t.baseUrl}/responses`,
        headers: { authorization: `Bearer ${key}` },
        body: { model: 'm', input, stream: true, store: false, temperature: 0.7 } as Body,
      };
    }
  }
}

async function send(r: ClientRequest) {
  const res = await fetch(r.url, {
    method: 'POST',
    headers: { ...r.headers, 'content-type': 'application/json' },
    body: JSON.stringify(r.body),
  });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

const temperatureSent = (kind: ProviderKind, b: Body | undefined) =>
  kind === 'google' ? (b?.generationConfig as Body | undefined)?.temperature : b?.temperature;

describe('the proxy speaks every provider kind', () => {
  let proxy: ProviderProxy;
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer([script]);
    proxy = await startProxy({ secrets: [KEY] });
  });
  afterAll(async () => {
    await proxy.close();
    await server.close();
  });
  const open = (kind: ProviderKind, task: string, o: Partial<TrialOptions> = {}) =>
    proxy.openTrial({
      provider: 'p',
      model: 'm',
      upstream: {
        provider: 'p',
        kind,
        baseUrl: server.baseUrlFor(task, 1, kind),
        apiKey: KEY,
        acceptsTemperature: true,
        supportsStreamUsage: true,
        temperature: 0,
        headers: {},
      },
      ...o,
    });
  const seenBy = (task: string, kind: ProviderKind) =>
    server.requests.filter((r) => r.taskId === task && r.kind === kind);

  it.each(KINDS_UNDER_TEST)(
    '%s: streams through, key in the API header, temperature pinned, usage read',
    async (kind) => {
      const t = open(kind, 'ok');
      expect(t.kind).toBe(kind);
      expect(t.baseUrl).toMatch(new RegExp(`/${KINDS[kind].version}$`));
      const r = await send(clientRequest(kind, t));
      expect(r.status, r.text).toBe(200);
      expect(r.type).toBe('text/event-stream');
      const up = seenBy('ok', kind);
      expect(up).toHaveLength(1);
      // The key goes in the header the API expects and nowhere else; the trial's key stays here.
      expect(up[0].credentials).toEqual(CREDENTIALS[kind]);
      expect(JSON.stringify(up[0])).not.toContain(t.apiKey);
      expect(temperatureSent(kind, up[0].body as Body)).toBe(0);
      if (kind === 'google') {
        expect(up[0].query).toBe('alt=sse');
        expect((up[0].body as Body).generationConfig).toMatchObject({ maxOutputTokens: 50 });
      }
      // Usage as the scripted server counted it: a quarter of the characters it received.
      const input = Math.ceil(JSON.stringify(up[0].body).length / 4);
      const output = Math.ceil(`read_file${JSON.stringify({ path: 'a.txt' })}`.length / 4);
      const { details, flags } = t.finish();
      expect(details).toMatchObject({
        kind,
        requests: 1,
        tokens: { input, output, total: input + output },
        usage_missing: 0,
        temperature_sent: 0,
        non_deterministic: false,
        errors: {},
      });
      expect(flags).toEqual([]);
      // The reply's own facts agree: the tool call's arguments counted as generated text.
      expect(replyFacts(r.text, true, kind).usage).toEqual({ input, output });
    },
  );

  it.each(
    KINDS_UNDER_TEST.flatMap((kind) =>
      (
        [
          ['rate_limit', 429, 'rate_limit'],
          ['quota', kind === 'anthropic' ? 400 : 429, 'quota'],
          ['context_http', 400, 'context_length'],
          ['context_stream', 200, 'context_length'],
          ['server_error', 500, 'server_error'],
        ] as const
      ).map(([task, status, cls]) => [kind, task, status, cls] as const),
    ),
  )('%s %s: status %i, classified %s in the format', async (kind, task, status, cls) => {
    const t = open(kind, task);
    const r = await send(clientRequest(kind, t));
    expect(r.status).toBe(status);
    const { details } = t.finish();
    expect(details.last_error).toMatchObject({ class: cls, source: 'upstream' });
    expect(details.usage_missing).toBe(0); // failures are not counted as replies without usage
  });

  it.each(KINDS_UNDER_TEST)(
    "%s: a budget answers with the format's own context-length error",
    async (kind) => {
      const t = open(kind, 'ok', { tokenBudget: 1 });
      expect((await send(clientRequest(kind, t))).status).toBe(200);
      const r = await send(clientRequest(kind, t, 1));
      expect(r.status).toBe(400);
      const err = JSON.parse(r.text);
      if (kind === 'anthropic')
        expect(err).toMatchObject({
          type: 'error',
          error: {
            type: 'invalid_request_error',
            message: expect.stringMatching(
              /^prompt is too long: \d+ tokens > 1 maximum \(NanoBench token budget 1/,
            ),
          },
        });
      else if (kind === 'google')
        expect(err.error).toMatchObject({
          code: 400,
          status: 'INVALID_ARGUMENT',
          message: expect.stringMatching(/exceeds the maximum number of tokens allowed \(1\)/),
        });
      else expect(err.error).toMatchObject({ code: 'context_length_exceeded' });
      expect(seenBy('ok', kind).length).toBeGreaterThan(0);
      const { details, flags } = t.finish();
      expect(details.last_error).toMatchObject({ source: 'budget', class: 'context_length' });
      expect(flags).toContain('budget_exceeded');
    },
  );

  it.each(KINDS_UNDER_TEST)("%s: only the kind's route and key header are served", async (kind) => {
    const t = open(kind, 'ok');
    const req = clientRequest(kind, t);
    // The key in another style (Bearer for Anthropic, x-api-key for the others) is refused.
    const other: Record<string, string> =
      KINDS[kind].auth === 'bearer'
        ? { 'x-api-key': t.apiKey }
        : { authorization: `Bearer ${t.apiKey}` };
    const wrongKey = await send({ ...req, headers: other });
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.text).toMatch(/wrong key for this trial/);
    const elsewhere = await send({ ...req, url: `${t.baseUrl}/embeddings` });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.text).toContain(`this trial speaks ${kind}`);
    if (kind === 'anthropic') expect(JSON.parse(elsewhere.text)).toMatchObject({ type: 'error' });
    expect(t.finish().details.requests).toBe(0);
  });

  it("Azure's api-key header, and the base URL's query kept beside the client's", async () => {
    const t = proxy.openTrial({
      provider: 'azure',
      model: 'm',
      upstream: {
        provider: 'azure',
        kind: 'openai-compatible',
        baseUrl: `${server.baseUrlFor('ok', 1)}?api-version=2024-10-21`,
        apiKey: KEY,
        auth: 'api-key',
        acceptsTemperature: true,
        supportsStreamUsage: true,
        temperature: 0,
        headers: {},
      },
    });
    expect((await send(clientRequest('openai-compatible', t))).status).toBe(200);
    const up = server.requests.at(-1)!;
    expect(up.credentials).toEqual({ 'api-key': KEY });
    expect(up.query).toBe('api-version=2024-10-21');
    expect(t.finish().details.tokens).toMatchObject({ output: expect.any(Number) });
  });

  it.each(KINDS_UNDER_TEST)(
    '%s: records a cassette (history stored as a delta) and replays it byte for byte',
    async (kind) => {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'nb-kinds-')), 'c.jsonl');
      const header: CassetteHeader = {
        type: 'nanobench-cassette',
        version: 1,
        task_id: 'ok',
        mode: 'hinted',
        attempt: 1,
        provider: 'p',
        model: 'm',
        trial_key: 'k',
        recorded_at: new Date().toISOString(),
        upstream: 'x',
      };
      const rec = open(kind, 'ok', { record: { file, header } });
      const live = [
        await send(clientRequest(kind, rec, 0)),
        await send(clientRequest(kind, rec, 1)),
      ];
      const recorded = rec.finish().details;
      const lines = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines[0]).toMatchObject({ type: 'nanobench-cassette', kind });
      // The second request shares its first item with the first: only the rest is stored.
      const history = KINDS[kind].history;
      expect(lines[2].request).toMatchObject({ messages_prefix: 1 });
      expect(lines[2].request[history]).toHaveLength(2);
      const cassette = loadCassette(file);
      expect(cassette.exchanges[1].request).toEqual(clientRequest(kind, rec, 1).body);
      expect(readFileSync(file, 'utf8')).not.toContain(KEY);

      const before = server.requests.length;
      const rep = proxy.openTrial({
        provider: 'p',
        model: 'm',
        kind,
        replay: { file, exchanges: cassette.exchanges },
      });
      expect(rep.kind).toBe(kind);
      const replayed = [
        await send(clientRequest(kind, rep, 0)),
        // Not the recorded conversation: counted as diverged, still served by turn.
        await send({ ...clientRequest(kind, rep, 1), body: clientRequest(kind, rep, 3).body }),
      ];
      expect(replayed.map((r) => r.text)).toEqual(live.map((r) => r.text));
      expect(server.requests.length).toBe(before);
      const done = rep.finish().details;
      expect(done).toMatchObject({ kind, upstream: 'replay', tokens: recorded.tokens });
      expect(done.replay).toMatchObject({ recorded_requests: 2, diverged_requests: 1 });
    },
  );
});
