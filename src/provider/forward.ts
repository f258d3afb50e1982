// One chat request, forwarded upstream: pin the temperature, ask for usage in streams, fall back
// when the upstream refuses either, and pass the reply to the agent as it arrives (never buffered,
// except error replies, which are small and must be read to recognise a refusal).
import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { RecordedResponse } from './cassette.js';
import { type ReplyFacts, replyFacts, type SentTemperature, SseScanner } from './usage.js';

export interface Upstream {
  provider: string;
  /** OpenAI base URL, e.g. https://openrouter.ai/api/v1 */
  baseUrl: string;
  /** Only ever in memory; goes upstream in Authorization and nowhere else. */
  apiKey?: string;
  acceptsTemperature: boolean;
  supportsStreamUsage: boolean;
  temperature: number;
  headers: Record<string, string>;
  /** A provider that does not accept the connection within this is unreachable. */
  connectTimeoutMs?: number;
  /** A reply (headers, or the next chunk of a stream) that takes longer than this is a timeout. */
  idleTimeoutMs?: number;
}

/** What the proxy has learnt an upstream model refuses; shared by the trials of a run. */
export interface Quirks {
  temperatureRejected?: string;
  streamOptionsRejected?: boolean;
}

/** Why the provider gave no (complete) reply: the provider failed, not the model. */
export interface UpstreamFailure {
  code: 'unreachable' | 'upstream_timeout' | 'no_response';
  message: string;
}

export interface ForwardResult {
  response: RecordedResponse;
  failure?: UpstreamFailure;
  facts: ReplyFacts;
  sent: { temperature: SentTemperature; stream_options: boolean; upstream_attempts: number };
  ttfbMs?: number;
}

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'proxy-authenticate',
  'trailer',
  'upgrade',
]);
const MAX_ERROR_BODY = 1024 * 1024;

/** Upstream URL without credentials or query string: safe to store. */
export function safeUrl(baseUrl: string): string {
  const u = new URL(baseUrl);
  return `${u.protocol}//${u.host}${u.pathname}`;
}

const DEFAULT_CONNECT_MS = 30_000;
const DEFAULT_IDLE_MS = 300_000;

const timeoutError = (code: string, message: string) => Object.assign(new Error(message), { code });

/**
 * A request that gives up on a provider that does not accept the connection within
 * connectTimeoutMs, or sends nothing (headers or stream data) for idleTimeoutMs: without these,
 * a provider that accepts and never answers held the trial for the agent's whole time limit.
 */
function post(url: URL, headers: Record<string, string>, payload: Buffer, up: Upstream) {
  const mod = url.protocol === 'https:' ? https : http;
  const req = mod.request(url, { method: 'POST', headers });
  // Why we cut the request, when we did: a stream cut mid-way surfaces only as "aborted".
  let cut: NodeJS.ErrnoException | undefined;
  const stop = (e: NodeJS.ErrnoException) => {
    cut = e;
    req.destroy(e);
  };
  const idleMs = up.idleTimeoutMs ?? DEFAULT_IDLE_MS;
  const connectMs = up.connectTimeoutMs ?? DEFAULT_CONNECT_MS;
  req.setTimeout(idleMs, () =>
    stop(timeoutError('NB_IDLE_TIMEOUT', `the provider sent nothing for ${idleMs / 1000}s`)),
  );
  req.once('socket', (socket) => {
    if (!socket.connecting) return;
    const timer = setTimeout(
      () =>
        stop(
          timeoutError(
            'NB_CONNECT_TIMEOUT',
            `the provider did not accept the connection within ${connectMs / 1000}s`,
          ),
        ),
      connectMs,
    );
    socket.once('connect', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
  });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.once('response', resolve);
    req.once('error', reject);
  });
  req.end(payload);
  return { req, response, cutBy: () => cut };
}

async function readCapped(r: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const c of r) {
    if (n < MAX_ERROR_BODY) parts.push(c as Buffer);
    n += (c as Buffer).length;
  }
  return Buffer.concat(parts).toString('utf8');
}

function replyHeaders(up: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(up.headers))
    if (v !== undefined && !HOP_BY_HOP.has(k)) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** The headers a replay needs. */
function keptHeaders(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ['content-type', 'retry-after']) if (h[k] !== undefined) out[k] = h[k];
  return out;
}

export interface ForwardInput {
  upstream: Upstream;
  quirks: Quirks;
  /** The agent's request body. */
  body: Record<string, unknown>;
  /** Agent request headers worth passing on (user-agent, accept). */
  agentHeaders: Record<string, string>;
  res: ServerResponse;
  redact: (s: string) => string;
  /** performance.now() when the agent's request had arrived. */
  t0: number;
}

export async function forward(i: ForwardInput): Promise<ForwardResult> {
  const { upstream: up, quirks, res, redact } = i;
  const url = new URL(up.baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/chat/completions`;
  const stream = i.body.stream === true;
  let sendTemp = up.acceptsTemperature && !quirks.temperatureRejected;
  let sendUsage = stream && up.supportsStreamUsage && !quirks.streamOptionsRejected;
  const sent = () => ({
    temperature: sendTemp ? up.temperature : null,
    stream_options: sendUsage,
    upstream_attempts: attempts,
  });
  let attempts = 0;
  const clientGone = new Promise<void>((resolve) => res.once('close', resolve));

  for (;;) {
    attempts++;
    const payload: Record<string, unknown> = { ...i.body };
    delete payload.temperature;
    if (sendTemp) payload.temperature = up.temperature;
    if (sendUsage)
      payload.stream_options = {
        ...(i.body.stream_options as object | undefined),
        include_usage: true,
      };
    const data = Buffer.from(JSON.stringify(payload));
    const headers: Record<string, string> = {
      ...i.agentHeaders,
      ...up.headers,
      'content-type': 'application/json',
      'accept-encoding': 'identity',
      'content-length': String(data.length),
    };
    if (up.apiKey) headers.authorization = `Bearer ${up.apiKey}`;
    const { req, response, cutBy } = post(url, headers, data, up);
    void clientGone.then(() => {
      if (!res.writableFinished) req.destroy();
    });
    let upRes: IncomingMessage;
    try {
      upRes = await response;
    } catch (e) {
      // Nothing answered: let the agent see a dropped connection, as it would without us.
      res.destroy();
      const code = (e as NodeJS.ErrnoException).code ?? 'connection failed';
      return {
        response: { status: 0, error: redact(code) },
        facts: { outputChars: 0 },
        sent: sent(),
        failure: failureOf(e as NodeJS.ErrnoException, redact),
      };
    }
    const status = upRes.statusCode ?? 0;
    const headersOut = replyHeaders(upRes);
    if (status >= 400) {
      const text = redact(await readCapped(upRes).catch(() => ''));
      if ((status === 400 || status === 422) && attempts < 3) {
        if (sendTemp && /temperature/i.test(text)) {
          quirks.temperatureRejected = text.slice(0, 300);
          sendTemp = false;
          continue;
        }
        if (sendUsage && /stream_options|include_usage/i.test(text)) {
          quirks.streamOptionsRejected = true;
          sendUsage = false;
          continue;
        }
      }
      res.writeHead(status, headersOut);
      res.end(text);
      return {
        response: { status, headers: keptHeaders(headersOut), body: text },
        facts: replyFacts(text, false),
        sent: sent(),
        ttfbMs: performance.now() - i.t0,
      };
    }
    return passThrough(i, upRes, status, headersOut, sent(), cutBy);
  }
}

/** The provider's failure, by the error the request ended with. */
function failureOf(e: NodeJS.ErrnoException, redact: (s: string) => string): UpstreamFailure {
  const message = redact(`${e.code ?? 'error'}: ${e.message}`);
  switch (e.code) {
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return { code: 'unreachable', message };
    case 'NB_CONNECT_TIMEOUT':
      return { code: 'unreachable', message };
    case 'NB_IDLE_TIMEOUT':
    case 'ETIMEDOUT':
      return { code: 'upstream_timeout', message };
    default:
      return { code: 'no_response', message };
  }
}

async function passThrough(
  i: ForwardInput,
  upRes: IncomingMessage,
  status: number,
  headers: Record<string, string>,
  sent: ForwardResult['sent'],
  cutBy: () => NodeJS.ErrnoException | undefined,
): Promise<ForwardResult> {
  const { res, redact } = i;
  const sse = /text\/event-stream/i.test(headers['content-type'] ?? '');
  const scanner = sse ? new SseScanner() : undefined;
  const key = i.upstream.apiKey;
  const parts: Buffer[] = [];
  let ttfbMs: number | undefined;
  let error: string | undefined;
  let failure: UpstreamFailure | undefined;
  res.writeHead(status, headers);
  try {
    for await (const c of upRes) {
      let chunk = c as Buffer;
      parts.push(chunk);
      scanner?.push(chunk);
      if (key && chunk.includes(key)) chunk = Buffer.from(redact(chunk.toString('utf8')));
      ttfbMs ??= performance.now() - i.t0;
      if (!res.write(chunk)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
      if (res.destroyed) throw new Error('the agent closed the connection');
    }
    res.end();
  } catch (e) {
    error = (e as Error).message;
    // The agent hanging up is the agent's business; the provider going quiet or away is not.
    const cause = cutBy() ?? (e as NodeJS.ErrnoException);
    if (!res.destroyed || cutBy()) failure = failureOf(cause, redact);
    res.destroy();
  }
  const body = redact(Buffer.concat(parts).toString('utf8'));
  const facts = scanner ? scanner.end() : replyFacts(body, false);
  return {
    response: {
      status,
      headers: keptHeaders(headers),
      body,
      ...(error && { error: redact(error) }),
    },
    facts,
    sent,
    ttfbMs,
    ...(failure && { failure }),
  };
}
