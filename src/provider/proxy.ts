// The NanoBench provider proxy: one HTTP server on 127.0.0.1 per run, between every LLM-agent
// trial and its upstream, in the wire format of the trial's provider kind (OpenAI chat
// completions, Anthropic Messages, Gemini generateContent, OpenAI Responses; src/provider/kinds.ts).
// Each trial gets its own base URL and dummy key; the real key stays in this process. Per trial it
// pins the temperature, counts usage, retries, latency and errors, enforces budgets, and records
// (or replays) a cassette.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { redactor } from '../util/redact.js';
import { type BudgetHit, type Budgets, budgetErrorBody, overBudget } from './budget.js';
import { type CassetteHeader, CassetteWriter, type Exchange } from './cassette.js';
import { forward, type Quirks, safeUrl, type Upstream, type UpstreamFailure } from './forward.js';
import {
  classifyError,
  DEFAULT_KIND,
  type ErrorClass,
  errorReply,
  KINDS,
  keyFrom,
  matchRoute,
  type ProviderKind,
  ROUTE_NAMES,
  type Route,
  requestShape,
} from './kinds.js';
import { sendJson } from './scripted-replies.js';
import { type Price, replyFacts, TrialTally } from './usage.js';

export type { Quirks, Upstream } from './forward.js';

export interface TrialOptions extends Budgets {
  provider: string;
  model: string;
  /** The wire format the agent speaks; default the upstream's, else openai-compatible. */
  kind?: ProviderKind;
  /** Where requests go; absent when the trial is replayed from a cassette. */
  upstream?: Upstream;
  replay?: { file: string; exchanges: Exchange[] };
  /** Cassette to record into (written through the proxy's redactor). */
  record?: { file: string; header: CassetteHeader };
  price?: Price;
  /** The provider answered 429 (a rate limit, not a quota) with a retry-after of this many ms. */
  onRateLimit?: (retryAfterMs: number) => void;
  /** Holds each upstream request until its provider has a request slot free (src/run/slots.ts). */
  gate?: RequestGate;
}

/** A provider's request slots: a request goes upstream only while it holds one. */
export interface RequestGate {
  /** Resolves with the slot's release; rejects when `signal` aborts first. */
  acquire(signal?: AbortSignal): Promise<() => void>;
}

/**
 * The proxy's account of one trial, kept as the trial's `details.proxy`: the tally (requests,
 * tokens, cost, latency, temperature) and what the trial met (budget, last error, the upstream's
 * failure, replay). Every key optional: a record stored by another version may lack one.
 */
export type ProxyAccount = Partial<Omit<ReturnType<TrialTally['summary']>, 'tokens'>> & {
  /** Input and output tokens of the trial (`total`, their sum, is absent in some records). */
  tokens?: { input: number; output: number; total?: number };
  provider?: string;
  model?: string;
  kind?: ProviderKind;
  /** The upstream's base URL without credentials, or "replay". */
  upstream?: string;
  non_deterministic?: boolean;
  budget?: { tokens: number | null; requests: number | null };
  budget_exceeded?: BudgetHit;
  /** The latest failed reply; cleared by a later good one. */
  last_error?: { status: number; message: string; source: Exchange['source']; class: ErrorClass };
  /** The provider refused, went quiet or dropped the reply on the trial's last request. */
  upstream_failure?: UpstreamFailure;
  cassette?: string;
  replay?: {
    cassette: string;
    recorded_requests: number;
    diverged_requests: number;
    exhausted: boolean;
  };
};

/** What a finished trial tells the store: details to keep, flags, and an infra failure if any. */
export interface TrialTelemetry {
  details: ProxyAccount;
  flags: string[];
  infraError?: string;
}

export interface ProxyTrial {
  /** What the agent's client takes as its base URL: .../v1 (Gemini: .../v1beta). */
  baseUrl: string;
  apiKey: string;
  kind: ProviderKind;
  /** Settles when the trial's first request arrives. */
  firstRequest: Promise<void>;
  /** Stop serving this trial and summarise it (idempotent). */
  finish(): TrialTelemetry;
}

export interface ProviderProxy {
  url: string;
  openTrial(o: TrialOptions): ProxyTrial;
  close(): Promise<void>;
}

const ROUTE = /^\/trial\/([0-9a-f]+)\/(v1|v1beta)\/(.+?)\/?$/;

export { redactor };

class Trial {
  readonly token = randomBytes(12).toString('hex');
  readonly apiKey = `nb-trial-${this.token}`;
  readonly tally = new TrialTally();
  readonly kind: ProviderKind;
  closed = false;
  /** Called at the trial's first request. */
  private arrived!: () => void;
  readonly firstRequest = new Promise<void>((resolve) => {
    this.arrived = resolve;
  });
  private lastHash = '';
  private lastFailed = false;
  private lastError?: {
    status: number;
    message: string;
    source: Exchange['source'];
    /** What the failure means (context length, rate limit, quota...), read in the kind's format. */
    class: ErrorClass;
  };
  /** The provider's failure on the latest request, if it failed (cleared by a later reply). */
  private upstreamFailure?: UpstreamFailure;
  budgetHit?: BudgetHit;
  diverged = 0;
  exhaustedAt?: number;
  private summary?: TrialTelemetry;
  private readonly writer?: CassetteWriter;

  constructor(
    readonly o: TrialOptions,
    private readonly quirks: Map<string, Quirks>,
    private readonly redact: (s: string) => string,
  ) {
    this.kind = o.kind ?? o.upstream?.kind ?? DEFAULT_KIND;
    if (o.record)
      this.writer = new CassetteWriter(
        o.record.file,
        { ...o.record.header, kind: this.kind },
        redact,
      );
    if (o.upstream && !o.upstream.acceptsTemperature)
      this.tally.temperatureNote = 'the provider is declared with accepts_temperature: false';
  }

  async request(
    req: IncomingMessage,
    res: ServerResponse,
    route: Route,
    query: string,
    raw: string,
    body: Record<string, unknown>,
  ) {
    this.arrived();
    let t0 = performance.now();
    /** When the provider's part ended: its request slot is free from then on. */
    let ended: number | undefined;
    const index = this.tally.requests++;
    const path = query ? `${route.path}?${query}` : route.path;
    const hash = createHash('sha256').update(path).update('\n').update(raw).digest('hex');
    // Nanocoder retries silently: the same request again right after an error reply.
    if (hash === this.lastHash && this.lastFailed) this.tally.retries++;
    this.lastHash = hash;
    const hit = this.budgetHit ?? overBudget(this.o, index + 1, this.tally.budgetTokens);
    let ex: Exchange;
    if (hit) {
      this.budgetHit ??= hit;
      const err = budgetErrorBody(hit, this.kind);
      sendJson(res, 400, err);
      const headers = { 'content-type': 'application/json' };
      const response = { status: 400, headers, body: JSON.stringify(err) };
      ex = {
        type: 'exchange',
        index,
        source: 'budget',
        request: body,
        path,
        response,
        total_ms: 0,
      };
    } else if (this.o.replay) {
      ex = { ...this.replay(index, body, res), path };
    } else {
      const slot = await this.waitForSlot(req);
      if (!slot) return; // the agent went away while its request waited
      const { release, queuedMs } = slot;
      // The provider's time starts when its slot does: the wait is the run's, not the model's.
      t0 = performance.now();
      const sentAt = new Date().toISOString();
      const up = this.o.upstream!;
      const model = route.model ?? String(body.model);
      const quirkKey = `${up.provider}|${new URL(up.baseUrl).origin}|${model}`;
      if (!this.quirks.has(quirkKey)) this.quirks.set(quirkKey, {});
      const quirks = this.quirks.get(quirkKey)!;
      // Nothing else of the agent's request goes upstream: its key header least of all.
      const agentHeaders: Record<string, string> = {};
      for (const h of ['user-agent', 'accept', ...KINDS[this.kind].passHeaders])
        if (typeof req.headers[h] === 'string') agentHeaders[h] = req.headers[h] as string;
      const r = await forward({
        upstream: { ...up, kind: this.kind },
        quirks,
        body,
        route,
        query,
        agentHeaders,
        res,
        redact: this.redact,
        t0,
      }).finally(() => {
        ended = performance.now();
        release();
      });
      this.tally.upstreamRequests += r.sent.upstream_attempts;
      this.upstreamFailure = r.failure;
      if (r.sent.temperature === null && up.acceptsTemperature)
        this.tally.temperatureNote = `the upstream rejected the temperature: ${quirks.temperatureRejected ?? ''}`;
      ex = {
        type: 'exchange',
        index,
        source: 'upstream',
        request: body,
        path,
        sent: r.sent,
        response: r.response,
        ...(r.ttfbMs !== undefined && { ttfb_ms: Math.round(r.ttfbMs * 100) / 100 }),
        total_ms: 0,
        sent_at: sentAt,
        ...(queuedMs > 0 && { queued_ms: Math.round(queuedMs * 100) / 100 }),
      };
    }
    const total = (ended ?? performance.now()) - t0;
    ex.total_ms = Math.round(total * 100) / 100;
    this.account(ex, raw.length, total);
    if (!this.closed) this.writer?.append(ex);
  }

  /**
   * A request slot of the trial's provider, and how long it took to get (also summed in the
   * tally); undefined when the agent closed the connection before one was free.
   */
  private async waitForSlot(
    req: IncomingMessage,
  ): Promise<{ release: () => void; queuedMs: number } | undefined> {
    const gate = this.o.gate;
    if (!gate) return { release: () => {}, queuedMs: 0 };
    if (req.socket.destroyed) return undefined;
    const asked = performance.now();
    const gone = new AbortController();
    const onClose = () => gone.abort();
    req.socket.once('close', onClose);
    const release = await gate.acquire(gone.signal).catch(() => undefined);
    req.socket.off('close', onClose);
    const queuedMs = performance.now() - asked;
    this.tally.queuedMs += queuedMs;
    return release && { release, queuedMs };
  }

  private replay(index: number, body: unknown, res: ServerResponse): Exchange {
    const rec = this.o.replay!.exchanges[index];
    if (!rec) {
      this.exhaustedAt ??= index;
      const msg = `NanoBench replay: the cassette holds ${index} responses; the agent made request ${index + 1}`;
      sendJson(res, 400, errorReply(this.kind, 400, msg, 'replay_exhausted'));
      const response = { status: 400, body: msg };
      return { type: 'exchange', index, source: 'replay', request: body, response, total_ms: 0 };
    }
    if (requestShape(this.kind, rec.request) !== requestShape(this.kind, body)) this.diverged++;
    if (rec.response.status === 0) res.destroy();
    else {
      res.writeHead(rec.response.status, rec.response.headers ?? {});
      res.end(rec.response.body ?? '');
    }
    const { ttfb_ms: _recorded, ...served } = rec;
    return { ...served, source: 'replay', request: body, total_ms: 0 };
  }

  private account(ex: Exchange, requestChars: number, totalMs: number): void {
    const t = this.tally;
    const { status, body, headers, error } = ex.response;
    const sse = /event-stream/i.test(headers?.['content-type'] ?? '');
    const facts = replyFacts(body ?? '', sse, this.kind);
    if (facts.usage) ex.usage = facts.usage;
    if (ex.sent && status > 0) t.temperatures.add(ex.sent.temperature);
    const failed = status === 0 || status >= 400 || Boolean(error) || Boolean(facts.error);
    this.lastFailed = failed;
    if (status === 0) t.addError('no_response');
    else if (status >= 400) t.addError(String(status));
    else if (facts.error) t.addError('error_in_reply');
    else if (error) t.addError('interrupted');
    // The last reply is what the agent ended on: neutral evidence for the exit classification.
    const message = facts.error ?? error ?? '';
    if (failed) this.noteRateLimit(ex, message);
    this.lastError = failed
      ? {
          status,
          message: message.slice(0, 300),
          source: ex.source,
          class: classifyError(status, message, facts.errorCode),
        }
      : undefined;
    if (status >= 200 && status < 300 && !facts.error) t.addUsage(facts, requestChars);
    const ms = Math.round(totalMs * 100) / 100;
    // Proxy-made replies (budget, replay) are written at once: first byte = whole reply.
    const ttfb = ex.source === 'upstream' ? ex.ttfb_ms : ms;
    if (ttfb !== undefined) t.ttfb.push(ttfb);
    t.total.push(ms);
  }

  /** A provider's 429 with a retry-after: the run's scheduler slows that provider's pool. */
  private noteRateLimit(ex: Exchange, message: string): void {
    const { status, headers } = ex.response;
    const after = headers?.['retry-after'];
    if (status !== 429 || ex.source !== 'upstream' || after === undefined) return;
    if (classifyError(status, message) !== 'rate_limit') return;
    const sec = Number(after);
    const ms = Number.isFinite(sec) ? sec * 1000 : Date.parse(after) - Date.now();
    this.o.onRateLimit?.(Number.isFinite(ms) ? Math.max(0, ms) : 0);
  }

  finish(): TrialTelemetry {
    this.closed = true;
    if (this.summary) return this.summary;
    const o = this.o;
    const s = this.tally.summary(o.replay ? undefined : o.price);
    const nonDeterministic = this.tally.temperatures.has(null);
    const details: ProxyAccount = {
      provider: o.provider,
      model: o.model,
      kind: this.kind,
      upstream: o.upstream ? safeUrl(o.upstream.baseUrl) : 'replay',
      ...s,
      non_deterministic: nonDeterministic,
      budget: { tokens: o.tokenBudget ?? null, requests: o.requestBudget ?? null },
      ...(this.budgetHit && { budget_exceeded: this.budgetHit }),
      ...(this.lastError && { last_error: this.lastError }),
      // The trial ended on a provider that refused, went quiet or dropped the reply: an
      // infrastructure failure (src/trial/agent.ts), never the model's score.
      ...(this.upstreamFailure && { upstream_failure: this.upstreamFailure }),
      ...(o.record && { cassette: o.record.file }),
    };
    if (o.replay)
      details.replay = {
        cassette: o.replay.file,
        recorded_requests: o.replay.exchanges.length,
        diverged_requests: this.diverged,
        exhausted: this.exhaustedAt !== undefined,
      };
    const flags = [
      ...(nonDeterministic ? ['non_deterministic'] : []),
      ...(this.budgetHit ? ['budget_exceeded'] : []),
    ];
    const infraError =
      this.exhaustedAt !== undefined
        ? `replay: ${o.replay!.file} holds ${this.exhaustedAt} responses; the agent asked for more`
        : undefined;
    this.summary = { details, flags, ...(infraError && { infraError }) };
    return this.summary;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startProxy(opts: { secrets?: string[] } = {}): Promise<ProviderProxy> {
  const trials = new Map<string, Trial>();
  const quirks = new Map<string, Quirks>();
  const redactSecrets = redactor(opts.secrets ?? []);
  const fail = (
    res: ServerResponse,
    status: number,
    message: string,
    code: string,
    kind: ProviderKind = DEFAULT_KIND,
  ) => sendJson(res, status, errorReply(kind, status, `NanoBench proxy: ${message}`, code));

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const [path, query = ''] = (req.url ?? '/').split('?', 2);
    const m = ROUTE.exec(path);
    const trial = m ? trials.get(m[1]) : undefined;
    if (!m || !trial || trial.closed)
      return fail(res, 404, `no trial route ${req.method} ${path}`, 'not_found');
    const { kind } = trial;
    // The dummy key comes in the header the kind's client uses (Bearer, x-api-key, x-goog-api-key).
    if (keyFrom(KINDS[kind].auth, req.headers) !== trial.apiKey)
      return fail(res, 401, 'wrong key for this trial', 'invalid_api_key', kind);
    const route = m[2] === KINDS[kind].version ? matchRoute(kind, m[3]) : undefined;
    if (kind === 'openai-compatible' && m[3] === 'models' && req.method === 'GET')
      return sendJson(res, 200, {
        object: 'list',
        data: [{ id: trial.o.model, object: 'model', owned_by: trial.o.provider }],
      });
    if (!route)
      return fail(
        res,
        404,
        `this trial speaks ${kind} (${ROUTE_NAMES[kind]}); not /${m[2]}/${m[3]}`,
        'not_found',
        kind,
      );
    if (req.method !== 'POST') return fail(res, 405, 'use POST', 'method_not_allowed', kind);
    const raw = await readBody(req);
    let body: unknown;
    try {
      body = JSON.parse(raw);
    } catch {
      return fail(res, 400, 'request body is not JSON', 'invalid_json', kind);
    }
    if (!body || typeof body !== 'object' || Array.isArray(body))
      return fail(res, 400, 'request body is not a JSON object', 'invalid_json', kind);
    await trial.request(req, res, route, query, raw, body as Record<string, unknown>);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e) => {
      if (!res.headersSent)
        fail(res, 500, `internal error: ${redactSecrets(String(e))}`, 'proxy_error');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openTrial(o) {
      const t = new Trial(o, quirks, redactor([...(opts.secrets ?? []), o.upstream?.apiKey]));
      trials.set(t.token, t);
      return {
        baseUrl: `${url}/trial/${t.token}/${KINDS[t.kind].version}`,
        apiKey: t.apiKey,
        kind: t.kind,
        firstRequest: t.firstRequest,
        finish: () => t.finish(),
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
