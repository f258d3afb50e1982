// One model request, forwarded upstream in the trial's wire format (src/provider/kinds.ts): pin
// the temperature, ask for usage in OpenAI chat streams, put the key in the header the API
// expects, fall back when the upstream refuses the temperature or stream_options, and pass the
// reply to the agent as it arrives (never buffered, except error replies, which are small and
// must be read to recognise a refusal). Upstream calls honour HTTPS_PROXY (upstream-proxy.ts).
import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';
import tls from 'node:tls';
import { redactUrl } from '../util/redact-url.js';
import type { RecordedResponse } from './cassette.js';
import {
  type AuthStyle,
  KINDS,
  keyHeader,
  type ProviderKind,
  type Route,
  withTemperature,
} from './kinds.js';
import { proxyAuthorization, proxyFor } from './upstream-proxy.js';
import { type ReplyFacts, replyFacts, type SentTemperature, SseScanner } from './usage.js';

export interface Upstream {
  provider: string;
  /** The wire format; default openai-compatible. */
  kind?: ProviderKind;
  /** Base URL of the API, e.g. https://openrouter.ai/api/v1, https://api.anthropic.com/v1 */
  baseUrl: string;
  /** Only ever in memory; goes upstream in the `auth` header and nowhere else. */
  apiKey?: string;
  /** The header the key goes in; default: the kind's (Bearer, x-api-key, x-goog-api-key). */
  auth?: AuthStyle;
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
 * Through an HTTPS_PROXY the connect limit covers reaching the proxy and its CONNECT answer.
 */
function post(url: URL, headers: Record<string, string>, payload: Buffer, up: Upstream) {
  const idleMs = up.idleTimeoutMs ?? DEFAULT_IDLE_MS;
  const connectMs = up.connectTimeoutMs ?? DEFAULT_CONNECT_MS;
  const route = proxyFor(url);
  const https_ = url.protocol === 'https:';
  let req: http.ClientRequest;
  if (!route) req = (https_ ? https : http).request(url, { method: 'POST', headers });
  else if (https_)
    // The tunnel is made before TLS starts: the proxy sees only host:port, never the key.
    // No agent: Node uses a request's own createConnection only when no agent is given.
    req = https.request(url, {
      method: 'POST',
      headers,
      defaultPort: 443,
      createConnection: ((_o: unknown, cb: (e: Error | null, s?: Socket) => void) => {
        tunnel(route.proxy, url, connectMs, cb);
      }) as unknown as https.RequestOptions['createConnection'],
    });
  else {
    const auth = proxyAuthorization(route.proxy);
    req = http.request({
      host: route.proxy.hostname,
      port: route.proxy.port || 80,
      method: 'POST',
      path: url.href,
      headers: { ...headers, host: url.host, ...(auth && { 'proxy-authorization': auth }) },
    });
  }
  // Why we cut the request, when we did: a stream cut mid-way surfaces only as "aborted".
  let cut: NodeJS.ErrnoException | undefined;
  const stop = (e: NodeJS.ErrnoException) => {
    cut = e;
    req.destroy(e);
  };
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

/** A TLS connection to `target` through an http proxy's CONNECT tunnel. */
function tunnel(
  proxy: URL,
  target: URL,
  timeoutMs: number,
  cb: (e: Error | null, s?: Socket) => void,
): void {
  const hostPort = `${target.hostname}:${target.port || 443}`;
  const auth = proxyAuthorization(proxy);
  const r = http.request({
    host: proxy.hostname,
    port: proxy.port || 80,
    method: 'CONNECT',
    path: hostPort,
    headers: { host: hostPort, ...(auth && { 'proxy-authorization': auth }) },
    agent: false,
  });
  const timer = setTimeout(
    () =>
      r.destroy(
        timeoutError(
          'NB_CONNECT_TIMEOUT',
          `the proxy ${redactUrl(proxy.href)} did not open a tunnel to ${hostPort} within ${timeoutMs / 1000}s`,
        ),
      ),
    timeoutMs,
  );
  r.once('connect', (res, socket, head) => {
    clearTimeout(timer);
    if (res.statusCode !== 200) {
      socket.destroy();
      const e = `the proxy ${redactUrl(proxy.href)} refused CONNECT ${hostPort}: ${res.statusCode} ${res.statusMessage ?? ''}`;
      return cb(Object.assign(new Error(e.trim()), { code: 'NB_PROXY_REFUSED' }));
    }
    if (head.length) socket.unshift(head);
    const host = target.hostname.replace(/^\[|\]$/g, '');
    // host: what the certificate is checked against (an IP address has no SNI name).
    cb(null, tls.connect({ socket, host, ...(isIP(host) ? {} : { servername: host }) }));
  });
  r.once('error', (e) => {
    clearTimeout(timer);
    cb(e);
  });
  r.end();
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
  /** Which request of the kind this is (path after the version segment). */
  route: Route;
  /** The agent's query string (Gemini streams ask for ?alt=sse), without the "?". */
  query: string;
  /** Agent request headers worth passing on (user-agent, accept, the kind's own). */
  agentHeaders: Record<string, string>;
  res: ServerResponse;
  redact: (s: string) => string;
  /** performance.now() when the agent's request had arrived. */
  t0: number;
}

/** Where the request goes: the upstream's base URL, the route's path, both query strings. */
export function upstreamUrl(baseUrl: string, route: Route, query: string): URL {
  const url = new URL(baseUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${route.path}`;
  // The base URL's own parameters (Azure's api-version) stay; the agent's are added.
  for (const [k, v] of new URLSearchParams(query)) url.searchParams.set(k, v);
  return url;
}

export async function forward(i: ForwardInput): Promise<ForwardResult> {
  const { upstream: up, quirks, res, redact } = i;
  const kind = up.kind ?? 'openai-compatible';
  const url = upstreamUrl(up.baseUrl, i.route, i.query);
  const stream = i.route.stream ?? i.body.stream === true;
  let sendTemp = up.acceptsTemperature && !quirks.temperatureRejected;
  // Only OpenAI chat streams leave usage out unless asked; the other formats always send it.
  let sendUsage =
    kind === 'openai-compatible' &&
    stream &&
    up.supportsStreamUsage &&
    !quirks.streamOptionsRejected;
  const sent = () => ({
    temperature: sendTemp ? up.temperature : null,
    stream_options: sendUsage,
    upstream_attempts: attempts,
  });
  let attempts = 0;
  const clientGone = new Promise<void>((resolve) => res.once('close', resolve));

  for (;;) {
    attempts++;
    const payload = withTemperature(kind, i.body, sendTemp ? up.temperature : null);
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
    if (up.apiKey) {
      const [name, value] = keyHeader(up.auth ?? KINDS[kind].auth, up.apiKey);
      headers[name] = value;
    }
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
        facts: replyFacts(text, false, kind),
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
    case 'NB_PROXY_REFUSED':
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
  const kind = i.upstream.kind ?? 'openai-compatible';
  const scanner = sse ? new SseScanner(kind) : undefined;
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
  const facts = scanner ? scanner.end() : replyFacts(body, false, kind);
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
