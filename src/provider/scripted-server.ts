// The scripted model server: a stand-in on 127.0.0.1 that replays scripts (see script-schema.ts)
// in every wire format Nanocoder speaks, chosen by path: OpenAI chat completions
// (/v1/chat/completions), Anthropic Messages (/v1/messages), Gemini
// (/v1beta/models/{model}:streamGenerateContent) and OpenAI Responses (/v1/responses). It is not a
// model. It is stateless: the reply depends only on the URL (task id, attempt), the requested
// model, whether the request offers tools (the bare agent's offer none: a script's `bare` replies)
// and how many assistant turns the request holds, so retries and parallel trials need no
// bookkeeping.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import {
  CREDENTIAL_HEADERS,
  KINDS,
  matchRoute,
  PROVIDER_KINDS,
  type ProviderKind,
  type Route,
} from './kinds.js';
import type { Behaviour, FailKind, ModelScript, Step } from './script-schema.js';
import { SCRIPTED_FORMATS, sendScriptedFailure } from './scripted-formats.js';
import { errorBody, replyFor, sendJson, tokens } from './scripted-replies.js';

export type { Behaviour, ModelScript, Step } from './script-schema.js';
export { loadScripts, parseScript } from './script-schema.js';

export interface RecordedRequest {
  method: string;
  path: string;
  /** The query string, without "?" (Gemini streams ask for alt=sse). */
  query: string;
  taskId?: string;
  attempt: number;
  model?: string;
  /** Parsed JSON body (undefined when it was not JSON). */
  body?: unknown;
  authorization?: string;
  /** Every credential header received (authorization, api-key, x-api-key, x-goog-api-key). */
  credentials: Record<string, string>;
  /** The wire format the request was in. */
  kind?: ProviderKind;
  /** The run's preflight request, not a trial's. */
  preflight?: boolean;
  stepIndex?: number;
  /** What the server did: "tool_calls", "final", "fail:<kind>", or "error:<status>". */
  outcome: string;
  status: number;
}

export interface ScriptedServerOptions {
  /** Default delay for {"fail":"slow"} steps without delay_ms. */
  slowDelayMs?: number;
  /** Serve HTTPS with this key and certificate (PEM) instead of HTTP. */
  tls?: { key: string; cert: string };
  /**
   * Replies of models that are not in `scripts` but derived from the task (`derived:golden`,
   * src/derived/): undefined when the model is not one, an `unbuildable` reason when the
   * behaviour cannot be built for the task.
   */
  derived?: DerivedReplies;
}

export interface DerivedReplies {
  /** Whether the server should answer for this model name. */
  serves(model: string): boolean;
  /** `bare`: the request offers no tools (the bare agent's): the replies in its text format. */
  steps(
    model: string,
    taskId: string,
    bare: boolean,
  ): Promise<Step[] | { unbuildable: string } | undefined>;
}

export interface ScriptedServer {
  /** http://127.0.0.1:PORT (https:// with `tls`) */
  url: string;
  /** Base URL (ends in /v1; Gemini's in /v1beta) that routes requests to one task and attempt. */
  baseUrlFor(taskId: string, attempt: number, kind?: ProviderKind): string;
  /**
   * Base URL of the run's preflight (src/provider/preflight.ts): a model whose script says
   * `refuse` answers with that failure, every other one with a short final reply.
   */
  preflightUrl(kind?: ProviderKind): string;
  /** Every request received, in arrival order (for tests). */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const DONE: Step = { final: 'Done.' };

/** Choose the behaviour's variant for an attempt: (attempt-1) % n, recursively. */
export function resolveBehaviour(b: Behaviour, attempt: number): Step[] {
  if ('steps' in b) return b.steps;
  const n = b.variants.length;
  return resolveBehaviour(b.variants[(((attempt - 1) % n) + n) % n], attempt);
}

/** The step to play for a request: the (assistant-message count)-th step, then "Done.". */
export function pickStep(
  script: ModelScript,
  taskId: string | undefined,
  attempt: number,
  assistantTurns: number,
  /** The request offers no tools (the bare agent's): the script's `bare` replies, if it has any. */
  bare = false,
): Step | undefined {
  const tasks = bare && script.bare ? script.bare : script.tasks;
  const behaviour = (taskId !== undefined ? tasks[taskId] : undefined) ?? tasks['*'];
  if (!behaviour) return undefined;
  return resolveBehaviour(behaviour, attempt)[assistantTurns] ?? DONE;
}

const ROUTE = /^(?:\/t\/([^/]+)\/(\d+)|\/(preflight))?\/(v1|v1beta)\/(.+?)\/?$/;

/** Which wire format a request path is in. */
function routeOf(version: string, path: string): { kind: ProviderKind; route: Route } | undefined {
  for (const kind of PROVIDER_KINDS) {
    if (KINDS[kind].version !== version) continue;
    const route = matchRoute(kind, path);
    if (route) return { kind, route };
  }
  return undefined;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startScriptedServer(
  scripts: ModelScript[],
  opts: ScriptedServerOptions = {},
): Promise<ScriptedServer> {
  const byModel = new Map(scripts.map((s) => [s.model, s]));
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  // Turns whose `fail_first` was sent: the retry gets the step itself.
  const failedFirst = new Set<string>();
  const failFirst = (step: Step, turn: string) => {
    if (!('fail_first' in step) || !step.fail_first || failedFirst.has(turn)) return false;
    failedFirst.add(turn);
    return true;
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const [urlPath, query = ''] = (req.url ?? '/').split('?', 2);
    const raw = await readBody(req);
    const m = ROUTE.exec(urlPath);
    const rec: RecordedRequest = {
      method: req.method ?? '',
      path: urlPath,
      query,
      attempt: 1,
      credentials: {},
      outcome: '',
      status: 0,
    };
    if (typeof req.headers.authorization === 'string')
      rec.authorization = req.headers.authorization;
    for (const h of CREDENTIAL_HEADERS)
      if (typeof req.headers[h] === 'string') rec.credentials[h] = req.headers[h] as string;
    requests.push(rec);
    const found = m ? routeOf(m[4], m[5]) : undefined;
    const format = SCRIPTED_FORMATS[found?.kind ?? 'openai-compatible'];
    const fail = (status: number, message: string, code: string) => {
      Object.assign(rec, { status, outcome: `error:${status}` });
      format.error(res, status, message, code);
    };
    if (m?.[1] !== undefined) {
      rec.taskId = decodeURIComponent(m[1]);
      rec.attempt = Number(m[2]);
    }
    if (m?.[3]) rec.preflight = true;
    if (m && m[4] === 'v1' && m[5] === 'models') {
      Object.assign(rec, { status: 200, outcome: 'models' });
      const data = [...byModel.keys()].map((id) => ({ id, object: 'model', owned_by: 'scripted' }));
      return sendJson(res, 200, { object: 'list', data });
    }
    if (!found)
      return fail(
        404,
        `The scripted model server has no route ${req.method} ${urlPath}`,
        'not_found',
      );
    rec.kind = found.kind;
    if (req.method !== 'POST')
      return fail(405, 'use POST for model requests', 'method_not_allowed');
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw);
      rec.body = body;
    } catch {
      return fail(400, 'request body is not JSON', 'invalid_json');
    }
    const model = found.route.model ?? (typeof body.model === 'string' ? body.model : '');
    rec.model = model;
    const derived = opts.derived?.serves(model) ? opts.derived : undefined;
    if (derived) return serveDerived(derived, model, body, rec, res, found.route.stream, fail);
    const script = byModel.get(model);
    if (!script) {
      const known = [...byModel.keys()].join(', ') || '(none)';
      return fail(
        404,
        `The scripted model server has no script for model "${model}" (scripted models: ${known})`,
        'model_not_found',
      );
    }
    const promptTokens = tokens(raw);
    // The provider refuses service for this model: every request, the preflight's too.
    if (script.refuse) {
      sendScriptedFailure(found.kind, res, script.refuse, promptTokens, model);
      return Object.assign(rec, { status: res.statusCode, outcome: `refuse:${script.refuse}` });
    }
    rec.stepIndex = format.turns(body);
    const step = rec.preflight
      ? { final: 'OK' }
      : pickStep(script, rec.taskId, rec.attempt, rec.stepIndex, !('tools' in body));
    if (!step)
      return fail(
        404,
        `The script for model "${model}" has no behaviour for task "${rec.taskId ?? '(default)'}" and no "*"`,
        'task_not_scripted',
      );

    if (failFirst(step, `${model}\0${rec.taskId}\0${rec.attempt}\0${rec.stepIndex}`)) {
      const first = (step as { fail_first: { fail: FailKind; retry_after_sec?: number } })
        .fail_first;
      sendScriptedFailure(found.kind, res, first.fail, promptTokens, model, first.retry_after_sec);
      return Object.assign(rec, { status: res.statusCode, outcome: `fail_first:${first.fail}` });
    }
    const delay =
      step.delay_ms ?? ('fail' in step && step.fail === 'slow' ? (opts.slowDelayMs ?? 30_000) : 0);
    if (delay > 0) {
      // Delay before any header, as a stalled upstream would; give up if the client leaves.
      const gone = await new Promise<boolean>((resolve) => {
        const t = setTimeout(() => {
          timers.delete(t);
          resolve(false);
        }, delay);
        timers.add(t);
        res.once('close', () => {
          clearTimeout(t);
          timers.delete(t);
          resolve(true);
        });
      });
      if (gone)
        return Object.assign(rec, {
          status: 0,
          outcome: `fail:${'fail' in step ? step.fail : ''}:client_gone`,
        });
    }
    if ('fail' in step && step.fail !== 'slow') {
      sendScriptedFailure(found.kind, res, step.fail, promptTokens, model, step.retry_after_sec);
      return Object.assign(rec, { status: res.statusCode, outcome: `fail:${step.fail}` });
    }
    sendStep(step, model, body, rec, res, found.kind, promptTokens, found.route.stream);
  }

  /** A derived model's turn: the task's derived step, or why there is none. */
  async function serveDerived(
    derived: DerivedReplies,
    model: string,
    body: Record<string, unknown>,
    rec: RecordedRequest,
    res: ServerResponse,
    routeStream: boolean | undefined,
    fail: (status: number, message: string, code: string) => void,
  ) {
    rec.stepIndex = SCRIPTED_FORMATS[rec.kind!].turns(body);
    const promptTokens = tokens(JSON.stringify(body));
    const steps = rec.preflight
      ? [{ final: 'OK' }]
      : await derived.steps(model, rec.taskId ?? '', !('tools' in body));
    if (!steps)
      return fail(
        404,
        `The scripted model server has no derived behaviour "${model}" for task "${rec.taskId ?? '(default)'}"`,
        'task_not_scripted',
      );
    if ('unbuildable' in steps)
      return fail(
        404,
        `"${model}" cannot be built for task "${rec.taskId}": ${steps.unbuildable}`,
        'unbuildable',
      );
    const step = steps[rec.stepIndex] ?? DONE;
    if ('fail' in step && step.fail !== 'slow') {
      sendScriptedFailure(rec.kind!, res, step.fail, promptTokens, model, step.retry_after_sec);
      return Object.assign(rec, { status: res.statusCode, outcome: `fail:${step.fail}` });
    }
    sendStep(step, model, body, rec, res, rec.kind!, promptTokens, routeStream);
  }

  function sendStep(
    step: Step,
    model: string,
    body: Record<string, unknown>,
    rec: RecordedRequest,
    res: ServerResponse,
    kind: ProviderKind,
    promptTokens: number,
    routeStream: boolean | undefined,
  ) {
    const format = SCRIPTED_FORMATS[kind];
    const reply = replyFor(step);
    const completionTokens = tokens(
      reply.content + reply.calls.map((c) => c.tool + JSON.stringify(c.args)).join(''),
    );
    const id = `chatcmpl-${rec.taskId ?? 'default'}-${rec.attempt}-${rec.stepIndex}`.replace(
      /[^A-Za-z0-9_.-]/g,
      '_',
    );
    format.reply(res, {
      model,
      reply,
      input: promptTokens,
      output: completionTokens,
      id,
      stream: routeStream ?? body.stream === true,
    });
    Object.assign(rec, {
      status: 200,
      outcome: 'fail' in step ? 'fail:slow' : reply.calls.length ? 'tool_calls' : 'final',
    });
  }

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent)
        sendJson(
          res,
          500,
          errorBody(`scripted model server bug: ${String(err)}`, 'server_error', null),
        );
      else res.destroy();
    });
  };
  const server = opts.tls ? createTlsServer(opts.tls, listener) : createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `${opts.tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  return {
    url,
    baseUrlFor: (taskId, attempt, kind = 'openai-compatible') =>
      `${url}/t/${encodeURIComponent(taskId)}/${attempt}/${KINDS[kind].version}`,
    preflightUrl: (kind = 'openai-compatible') => `${url}/preflight/${KINDS[kind].version}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
