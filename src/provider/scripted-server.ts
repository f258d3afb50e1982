// The scripted model server: an OpenAI-compatible chat endpoint on 127.0.0.1 that replays
// scripts (see script-schema.ts). It is not a model. It is stateless: the reply depends only on
// the URL (task id, attempt), the requested model and how many assistant turns the request holds,
// so retries and parallel trials need no bookkeeping.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Behaviour, ModelScript, Step } from './script-schema.js';
import {
  errorBody,
  plainReply,
  replyFor,
  sendFailure,
  sendJson,
  streamReply,
  tokens,
} from './scripted-replies.js';

export type { Behaviour, ModelScript, Step } from './script-schema.js';
export { loadScripts, parseScript } from './script-schema.js';

export interface RecordedRequest {
  method: string;
  path: string;
  taskId?: string;
  attempt: number;
  model?: string;
  /** Parsed JSON body (undefined when it was not JSON). */
  body?: unknown;
  authorization?: string;
  stepIndex?: number;
  /** What the server did: "tool_calls", "final", "fail:<kind>", or "error:<status>". */
  outcome: string;
  status: number;
}

export interface ScriptedServerOptions {
  /** Default delay for {"fail":"slow"} steps without delay_ms. */
  slowDelayMs?: number;
}

export interface ScriptedServer {
  /** http://127.0.0.1:PORT */
  url: string;
  /** OpenAI base URL (ends in /v1) that routes requests to one task and attempt. */
  baseUrlFor(taskId: string, attempt: number): string;
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
): Step | undefined {
  const behaviour = (taskId !== undefined ? script.tasks[taskId] : undefined) ?? script.tasks['*'];
  if (!behaviour) return undefined;
  return resolveBehaviour(behaviour, attempt)[assistantTurns] ?? DONE;
}

const ROUTE = /^(?:\/t\/([^/]+)\/(\d+))?\/v1\/(chat\/completions|models)\/?$/;

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

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const urlPath = (req.url ?? '/').split('?')[0];
    const raw = await readBody(req);
    const m = ROUTE.exec(urlPath);
    const rec: RecordedRequest = {
      method: req.method ?? '',
      path: urlPath,
      attempt: 1,
      outcome: '',
      status: 0,
    };
    if (typeof req.headers.authorization === 'string')
      rec.authorization = req.headers.authorization;
    requests.push(rec);
    const fail = (status: number, message: string, code: string) => {
      Object.assign(rec, { status, outcome: `error:${status}` });
      sendJson(res, status, errorBody(message, 'invalid_request_error', code));
    };
    if (!m)
      return fail(
        404,
        `The scripted model server has no route ${req.method} ${urlPath}`,
        'not_found',
      );
    if (m[1] !== undefined) {
      rec.taskId = decodeURIComponent(m[1]);
      rec.attempt = Number(m[2]);
    }
    if (m[3] === 'models') {
      Object.assign(rec, { status: 200, outcome: 'models' });
      const data = [...byModel.keys()].map((id) => ({ id, object: 'model', owned_by: 'scripted' }));
      return sendJson(res, 200, { object: 'list', data });
    }
    if (req.method !== 'POST')
      return fail(405, 'use POST for chat completions', 'method_not_allowed');
    let body: { model?: unknown; messages?: unknown; stream?: unknown };
    try {
      body = JSON.parse(raw);
      rec.body = body;
    } catch {
      return fail(400, 'request body is not JSON', 'invalid_json');
    }
    const model = typeof body.model === 'string' ? body.model : '';
    rec.model = model;
    const script = byModel.get(model);
    if (!script) {
      const known = [...byModel.keys()].join(', ') || '(none)';
      return fail(
        404,
        `The scripted model server has no script for model "${model}" (scripted models: ${known})`,
        'model_not_found',
      );
    }
    const messages = Array.isArray(body.messages) ? (body.messages as { role?: unknown }[]) : [];
    rec.stepIndex = messages.filter((msg) => msg?.role === 'assistant').length;
    const step = pickStep(script, rec.taskId, rec.attempt, rec.stepIndex);
    if (!step)
      return fail(
        404,
        `The script for model "${model}" has no behaviour for task "${rec.taskId ?? '(default)'}" and no "*"`,
        'task_not_scripted',
      );

    const promptTokens = tokens(raw);
    const delay =
      'fail' in step
        ? (step.delay_ms ?? (step.fail === 'slow' ? (opts.slowDelayMs ?? 30_000) : 0))
        : 0;
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
      sendFailure(res, step.fail, promptTokens, model);
      return Object.assign(rec, { status: res.statusCode, outcome: `fail:${step.fail}` });
    }
    const reply = replyFor(step);
    const completionTokens = tokens(
      reply.content + reply.calls.map((c) => c.tool + JSON.stringify(c.args)).join(''),
    );
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: completionTokens,
      total_tokens: promptTokens + completionTokens,
    };
    const id = `chatcmpl-${rec.taskId ?? 'default'}-${rec.attempt}-${rec.stepIndex}`.replace(
      /[^A-Za-z0-9_.-]/g,
      '_',
    );
    if (body.stream === true) streamReply(res, model, reply, usage, id);
    else plainReply(res, model, reply, usage, id);
    Object.assign(rec, {
      status: 200,
      outcome: 'fail' in step ? 'fail:slow' : reply.calls.length ? 'tool_calls' : 'final',
    });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err) => {
      if (!res.headersSent)
        sendJson(
          res,
          500,
          errorBody(`scripted model server bug: ${String(err)}`, 'server_error', null),
        );
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
    baseUrlFor: (taskId, attempt) => `${url}/t/${encodeURIComponent(taskId)}/${attempt}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
