// A local stand-in for an OpenAI-compatible provider on 127.0.0.1, for the proxy tests. It can
// stream or not, send usage or not, refuse temperature (echoing the Authorization header it got,
// as a careless provider might), fail the first request, hold a stream open after its first
// chunk, or forward everything to another server (the scripted model server). Its failures
// (failFirst, rejectTemperature) answer streamed requests only, as agents send: the run's
// preflight (one non-streamed request, src/provider/preflight.ts) goes through untouched.
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInOptions {
  /** 400 "Unsupported value: 'temperature' ..." whenever a temperature is sent. */
  rejectTemperature?: boolean;
  /** Send usage: always in JSON replies; in streams only when stream_options.include_usage. */
  usage?: boolean;
  /** Content pieces of a reply. */
  pieces?: string[];
  /** Hold the stream after its first chunk until this resolves. */
  gate?: Promise<void>;
  /** Answer the first chat request with this status (retry-after: 0), echoing Authorization. */
  failFirst?: number;
  /** Forward accepted requests (same path) to this origin, e.g. the scripted model server. */
  forwardTo?: string;
}

export interface SeenRequest {
  path: string;
  authorization?: string;
  body: Record<string, unknown>;
}

export interface StandIn {
  url: string;
  /** OpenAI base URL: {url}/v1 */
  baseUrl: string;
  seen: SeenRequest[];
  /** Set when a held stream has been fully written. */
  finishedStreams: number;
  options: StandInOptions;
  close(): Promise<void>;
}

const USAGE = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startStandIn(options: StandInOptions = {}): Promise<StandIn> {
  const seen: SeenRequest[] = [];
  const state = { finishedStreams: 0 };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await readBody(req);
    const body = raw ? JSON.parse(raw) : {};
    const authorization = req.headers.authorization;
    seen.push({ path: req.url ?? '', authorization, body });
    const o = options;
    const streamed = seen.filter((s) => s.body.stream === true).length;
    if (o.failFirst && body.stream === true && streamed === 1) {
      res.writeHead(o.failFirst, { 'content-type': 'application/json', 'retry-after': '0' });
      const message = `Rate limit exceeded (stand-in; request authorised by "${authorization}")`;
      return res.end(JSON.stringify({ error: { message } }));
    }
    if (o.rejectTemperature && body.stream === true && 'temperature' in body) {
      res.writeHead(400, { 'content-type': 'application/json' });
      const message = `Unsupported value: 'temperature' does not support ${body.temperature} with this model (request authorised by "${authorization}")`;
      return res.end(JSON.stringify({ error: { message, type: 'invalid_request_error' } }));
    }
    if (o.forwardTo) {
      const up = request(`${o.forwardTo}${req.url}`, {
        method: req.method,
        headers: { 'content-type': 'application/json' },
      });
      up.on('response', (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      return up.end(raw);
    }
    const pieces = o.pieces ?? ['Hello', ' world'];
    const base = { id: 'stand-in', created: 0, model: body.model };
    if (body.stream !== true) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const message = { role: 'assistant', content: pieces.join('') };
      return res.end(
        JSON.stringify({
          ...base,
          object: 'chat.completion',
          choices: [{ index: 0, message, finish_reason: 'stop' }],
          ...(o.usage && { usage: USAGE }),
        }),
      );
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const send = (chunk: object) =>
      res.write(
        `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', ...chunk })}\n\n`,
      );
    const delta = (d: object, finish: string | null = null) =>
      send({ choices: [{ index: 0, delta: d, finish_reason: finish }] });
    delta({ role: 'assistant', content: pieces[0] });
    if (o.gate) await o.gate;
    for (const p of pieces.slice(1)) delta({ content: p });
    delta({}, 'stop');
    const wantsUsage = (body.stream_options as { include_usage?: boolean })?.include_usage;
    if (o.usage && wantsUsage) send({ choices: [], usage: USAGE });
    res.end('data: [DONE]\n\n');
    state.finishedStreams++;
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    seen,
    get finishedStreams() {
      return state.finishedStreams;
    },
    options,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const STAND_IN_USAGE = USAGE;
