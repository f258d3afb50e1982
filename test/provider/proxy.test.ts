// The provider proxy against a local stand-in upstream: temperature pinning and its fallback,
// usage counting, retries, budgets, key isolation, pass-through streaming, record and replay.
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CassetteHeader, loadCassette } from '../../src/provider/cassette.js';
import {
  type ProviderProxy,
  type ProxyTrial,
  startProxy,
  type TrialOptions,
  type Upstream,
} from '../../src/provider/proxy.js';
import { Pool } from '../../src/util/pool.js';
import { type StandIn, startStandIn } from './stand-in-upstream.js';

const KEY = 'sk-FAKE-nanobench-proxy-test-0123456789';

function upstreamOf(s: StandIn, over: Partial<Upstream> = {}): Upstream {
  return {
    provider: 'stand-in',
    baseUrl: s.baseUrl,
    apiKey: KEY,
    acceptsTemperature: true,
    supportsStreamUsage: true,
    temperature: 0,
    headers: {},
    ...over,
  };
}

const body = (stream: boolean, content = 'hi') => ({
  model: 'm',
  messages: [{ role: 'user', content }],
  stream,
});

async function chat(t: ProxyTrial, payload: object, key = t.apiKey) {
  const r = await fetch(`${t.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  });
  return { status: r.status, headers: r.headers, text: await r.text() };
}

/** Polls `done` every 10 ms, for at most 5 s. */
async function until(done: () => boolean) {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!done()) throw new Error('timed out waiting');
}

describe('provider proxy', () => {
  let proxy: ProviderProxy;
  const standIns: StandIn[] = [];
  const standIn = async (o: Parameters<typeof startStandIn>[0] = {}) => {
    const s = await startStandIn(o);
    standIns.push(s);
    return s;
  };
  const open = (s: StandIn | undefined, o: Partial<TrialOptions> = {}, up?: Partial<Upstream>) =>
    proxy.openTrial({
      provider: 'stand-in',
      model: 'm',
      ...(s && { upstream: upstreamOf(s, up) }),
      ...o,
    });
  beforeAll(async () => {
    proxy = await startProxy();
  });
  afterAll(async () => {
    await proxy.close();
    for (const s of standIns) await s.close();
  });

  it('injects temperature 0, asks for stream usage, and counts the streamed usage', async () => {
    const s = await standIn({ usage: true });
    const t = open(s);
    const r = await chat(t, body(true));
    expect(r.status).toBe(200);
    expect(r.text).toContain('Hello');
    expect(s.seen[0].body.temperature).toBe(0);
    expect(s.seen[0].body.stream_options).toEqual({ include_usage: true });
    const { details, flags } = t.finish();
    expect(details).toMatchObject({
      requests: 1,
      upstream_requests: 1,
      retries: 0,
      tokens: { input: 11, output: 7, total: 18 },
      usage_missing: 0,
      temperature_sent: 0,
      non_deterministic: false,
      errors: {},
    });
    expect(flags).toEqual([]);
  });

  it('counts usage of non-streamed replies, and the cost from declared prices', async () => {
    const s = await standIn({ usage: true });
    const t = open(s, { price: { input: 2, output: 10 } });
    const r = await chat(t, body(false));
    expect(JSON.parse(r.text).choices[0].message.content).toBe('Hello world');
    expect(s.seen[0].body.stream_options).toBeUndefined();
    const { details } = t.finish();
    expect(details.tokens).toEqual({ input: 11, output: 7, total: 18 });
    expect(details.cost_usd).toBeCloseTo((11 * 2 + 7 * 10) / 1e6, 12);
  });

  it('a reply without usage: no tokens invented, no cost, an estimate kept for budgets', async () => {
    const s = await standIn({ usage: false });
    const t = open(s, { price: { input: 2, output: 10 } });
    await chat(t, body(true));
    const { details } = t.finish();
    expect(details).toMatchObject({ usage_missing: 1, tokens: { total: 0 }, cost_usd: null });
    expect(details.estimated_tokens).toBeGreaterThan(0);
  });

  it('an upstream refusing temperature: retried without it, flagged non-deterministic', async () => {
    const s = await standIn({ rejectTemperature: true, usage: true });
    const t = open(s, {}, { provider: 'refuser' });
    const r = await chat(t, body(true));
    expect(r.status).toBe(200);
    expect(s.seen.map((x) => x.body.temperature)).toEqual([0, undefined]);
    const first = t.finish();
    expect(first.details).toMatchObject({
      requests: 1,
      upstream_requests: 2,
      temperature_sent: null,
      non_deterministic: true,
    });
    expect(first.details.temperature_note).toMatch(/rejected the temperature/);
    expect(first.flags).toContain('non_deterministic');
    // The refusal echoed the key; the proxy kept the message but not the key.
    expect(JSON.stringify(first.details)).not.toContain(KEY);
    expect(JSON.stringify(first.details)).toContain('[REDACTED]');

    // The next trial on the same model does not ask again.
    const t2 = open(s, {}, { provider: 'refuser' });
    await chat(t2, body(true));
    expect(s.seen).toHaveLength(3);
    expect(s.seen[2].body.temperature).toBeUndefined();
    expect(t2.finish().flags).toContain('non_deterministic');
  });

  it('a provider declared without temperature support gets none and is non-deterministic', async () => {
    const s = await standIn({ usage: true });
    const t = open(s, {}, { acceptsTemperature: false });
    await chat(t, { ...body(false), temperature: 0.7 });
    expect('temperature' in s.seen[0].body).toBe(false);
    const { details, flags } = t.finish();
    expect(details.temperature_note).toMatch(/accepts_temperature: false/);
    expect(flags).toEqual(['non_deterministic']);
  });

  it('passes a stream through: the first chunk arrives while the upstream holds the rest', async () => {
    let release!: () => void;
    let released = false;
    const gate = new Promise<void>((r) => {
      release = () => {
        released = true;
        r();
      };
    });
    const s = await standIn({ gate, usage: true });
    const t = open(s);
    // If the proxy buffered, the first chunk would only come after this fallback release.
    const fallback = setTimeout(release, 10_000);
    const received = await new Promise<{ releasedAtFirst: boolean; text: string }>(
      (resolve, reject) => {
        const req = request(`${t.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${t.apiKey}`, 'content-type': 'application/json' },
        });
        req.on('response', (res) => {
          let text = '';
          let releasedAtFirst: boolean | undefined;
          res.on('data', (c: Buffer) => {
            releasedAtFirst ??= released;
            text += c.toString();
            release();
          });
          res.on('end', () => resolve({ releasedAtFirst: releasedAtFirst!, text }));
        });
        req.on('error', reject);
        req.end(JSON.stringify(body(true)));
      },
    );
    clearTimeout(fallback);
    expect(received.releasedAtFirst).toBe(false);
    expect(received.text).toContain('world');
    expect(received.text).toContain('[DONE]');
    expect(t.finish().details.tokens).toMatchObject({ total: 18 });
  });

  it("counts the agent's silent retries and error replies by status; passes retry-after", async () => {
    const s = await standIn({ failFirst: 429, usage: true });
    const t = open(s);
    const first = await chat(t, body(true));
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('0');
    expect((await chat(t, body(true))).status).toBe(200);
    await chat(t, body(true, 'a new question')); // not a retry: the previous one succeeded
    const { details } = t.finish();
    expect(details).toMatchObject({ requests: 3, retries: 1, errors: { '429': 1 } });
    expect(details.last_error).toBeUndefined(); // the trial did not end on the error
  });

  it("keeps the key: only the upstream sees it; the agent's dummy key is checked", async () => {
    const s = await standIn({ failFirst: 401, usage: true });
    const t = open(s);
    const refused = await chat(t, body(true), 'nb-trial-someone-else');
    expect(refused.status).toBe(401);
    expect(s.seen).toHaveLength(0);
    const r = await chat(t, body(true));
    expect(r.status).toBe(401); // the stand-in's failFirst, echoing the Authorization it got
    expect(s.seen[0].authorization).toBe(`Bearer ${KEY}`);
    expect(r.text).toContain('[REDACTED]');
    expect(r.text).not.toContain(KEY);
    t.finish();
  });

  it('budgets: past the token budget, a context-length error that names the budget', async () => {
    const s = await standIn({ usage: true });
    const t = open(s, { tokenBudget: 10 });
    expect((await chat(t, body(true))).status).toBe(200);
    const r = await chat(t, body(true, 'next'));
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).error).toMatchObject({ code: 'context_length_exceeded' });
    expect(r.text).toMatch(/maximum context length.*NanoBench token budget 10 exceeded/);
    expect(s.seen).toHaveLength(1);
    const { details, flags } = t.finish();
    expect(details.budget_exceeded).toEqual({ budget: 'tokens', limit: 10, used: 18 });
    expect(details.last_error).toMatchObject({ status: 400, source: 'budget' });
    expect(flags).toContain('budget_exceeded');

    const t2 = open(s, { requestBudget: 1 });
    expect((await chat(t2, body(true))).status).toBe(200);
    expect((await chat(t2, body(true, 'again'))).text).toMatch(/request budget 1 exceeded/);
    expect(t2.finish().details.budget_exceeded).toMatchObject({ budget: 'requests', limit: 1 });
  });

  it('records a cassette with the key redacted and replays it by turn', async () => {
    const s = await standIn({ failFirst: 429, usage: true });
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'nb-cassette-')), 'c.jsonl');
    const header: CassetteHeader = {
      type: 'nanobench-cassette',
      version: 1,
      task_id: 'task',
      mode: 'hinted',
      attempt: 1,
      provider: 'stand-in',
      model: 'm',
      trial_key: 'k',
      recorded_at: new Date().toISOString(),
      upstream: s.baseUrl,
    };
    const rec = open(s, { record: { file, header } });
    const live = [await chat(rec, body(true)), await chat(rec, body(true))];
    rec.finish();
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(KEY);
    const cassette = loadCassette(file);
    expect(cassette.exchanges.map((e) => e.response.status)).toEqual([429, 200]);
    expect(cassette.exchanges[1].request).toEqual(body(true));

    const seenBefore = s.seen.length;
    const rep = open(undefined, { replay: { file, exchanges: cassette.exchanges } });
    const replayed = [await chat(rep, body(true)), await chat(rep, body(true))];
    expect(replayed.map((r) => [r.status, r.text])).toEqual(live.map((r) => [r.status, r.text]));
    expect(s.seen.length).toBe(seenBefore);
    const done = rep.finish();
    expect(done.details).toMatchObject({
      upstream: 'replay',
      requests: 2,
      retries: 1,
      tokens: { total: 18 },
      temperature_sent: 0,
    });
    expect(done.infraError).toBeUndefined();

    const over = open(undefined, { replay: { file, exchanges: cassette.exchanges } });
    await chat(over, body(true));
    await chat(over, body(true));
    expect((await chat(over, body(true))).text).toMatch(/cassette holds 2 responses/);
    expect(over.finish().infraError).toMatch(/holds 2 responses/);
  });

  it("an unreachable upstream: the agent's connection drops and it is counted", async () => {
    const dead = createServer();
    await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
    const port = (dead.address() as AddressInfo).port;
    await new Promise<void>((r) => dead.close(() => r()));
    const t = proxy.openTrial({
      provider: 'dead',
      model: 'm',
      upstream: { ...upstreamOf(await standIn()), baseUrl: `http://127.0.0.1:${port}/v1` },
    });
    await expect(chat(t, body(true))).rejects.toThrow();
    expect(t.finish().details.errors).toEqual({ no_response: 1 });
  });

  /**
   * A provider of one request slot, and two trials of it; the first one's request is in flight,
   * held by the provider until `hold()`.
   */
  const oneSlotBusy = async () => {
    let hold!: () => void;
    const s = await standIn({ gate: new Promise<void>((r) => (hold = r)) });
    const slots = new Pool(1);
    const gate = { acquire: (signal?: AbortSignal) => slots.acquire(signal) };
    const first = open(s, { gate });
    const second = open(s, { gate });
    const firstReply = chat(first, body(true));
    await until(() => s.seen.length === 1);
    return { s, slots, first, second, firstReply, hold };
  };

  it("holds a request until its provider has a request slot, and times the provider's part only", async () => {
    const { s, slots, first, second, firstReply, hold } = await oneSlotBusy();
    const secondReply = chat(second, body(true));
    // The second agent's request waits at the proxy while the first holds the provider's slot.
    await until(() => slots.queued === 1);
    await new Promise((r) => setTimeout(r, 150));
    expect(s.seen.length).toBe(1);
    hold();
    expect((await firstReply).status).toBe(200);
    expect((await secondReply).text).toContain('Hello');
    expect(s.seen.length).toBe(2);
    expect(slots.busy).toBe(0);
    const waited = second.finish().details.latency_ms!;
    const held = first.finish().details.latency_ms!;
    expect(held.queued_sum).toBe(0);
    expect(waited.queued_sum).toBeGreaterThanOrEqual(140);
    // The wait is not the provider's latency: the second request was served at once.
    expect(waited.total_sum).toBeLessThan(waited.queued_sum!);
  });

  it('drops a waiting request whose agent went away: it never reaches the provider', async () => {
    const { s, slots, second: gone, firstReply, hold } = await oneSlotBusy();
    const stop = new AbortController();
    const abandoned = fetch(`${gone.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gone.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body(true)),
      signal: stop.signal,
    }).catch(() => 'aborted');
    await until(() => slots.queued === 1);
    stop.abort();
    expect(await abandoned).toBe('aborted');
    await until(() => slots.queued === 0);
    hold();
    expect((await firstReply).status).toBe(200);
    await new Promise((r) => setTimeout(r, 50));
    expect(s.seen.length).toBe(1);
    expect(slots.busy).toBe(0);
  });

  it('refuses unknown and finished trials', async () => {
    const s = await standIn();
    const t = open(s);
    t.finish();
    expect((await chat(t, body(true))).status).toBe(404);
    const bad = await fetch(`${proxy.url}/v1/chat/completions`, { method: 'POST', body: '{}' });
    expect(bad.status).toBe(404);
  });
});
