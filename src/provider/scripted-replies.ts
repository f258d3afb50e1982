// Wire formats of the scripted model server: OpenAI-style JSON errors, SSE chat-completion
// chunks and non-streamed completions, shaped like what Nanocoder (AI SDK openai-compatible) reads.
import type { ServerResponse } from 'node:http';
import type { FailKind, ScriptToolCall, Step } from './script-schema.js';

/** The scripted models' context window: a context_overflow failure claims one token more. */
export const CONTEXT_LIMIT = 8192;
export const overflowOf = (promptTokens: number) => Math.max(promptTokens, CONTEXT_LIMIT + 1);

/** Deterministic token estimate: a quarter of the characters, rounded up. */
export const tokens = (text: string) => Math.ceil(text.length / 4);

export function sendJson(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export function errorBody(message: string, type: string, code: string | null) {
  return { error: { message, type, param: null, code } };
}

// retry-after: 0 makes the client's (fixed) retries immediate, so failure runs stay fast.
export const NO_WAIT = { 'retry-after': '0' };

export function sendFailure(
  res: ServerResponse,
  kind: FailKind,
  promptTokens: number,
  model: string,
  wait: Record<string, string> = NO_WAIT,
) {
  const overflow = overflowOf(promptTokens);
  const contextMsg =
    `This model's maximum context length is ${CONTEXT_LIMIT} tokens. However, your messages ` +
    `resulted in ${overflow} tokens. Please reduce the length of the messages.`;
  switch (kind) {
    case 'rate_limit':
      return sendJson(
        res,
        429,
        errorBody(`Rate limit reached for ${model} (scripted).`, 'requests', 'rate_limit_exceeded'),
        wait,
      );
    case 'quota':
      return sendJson(
        res,
        429,
        errorBody(
          'You exceeded your current quota, please check your plan and billing details.',
          'insufficient_quota',
          'insufficient_quota',
        ),
        wait,
      );
    case 'context_http':
      return sendJson(
        res,
        400,
        errorBody(contextMsg, 'invalid_request_error', 'context_length_exceeded'),
      );
    case 'context_stream':
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(
        `data: ${JSON.stringify(errorBody(contextMsg, 'invalid_request_error', 'context_length_exceeded'))}\n\n`,
      );
      return res.end();
    case 'server_error':
      return sendJson(
        res,
        500,
        errorBody(
          'The scripted model server was told to fail (server_error).',
          'server_error',
          null,
        ),
        wait,
      );
    case 'slow':
      return undefined; // handled by the caller: a delayed normal reply
  }
}

export interface Reply {
  content: string;
  calls: ScriptToolCall[];
}

export function replyFor(step: Step): Reply {
  if ('final' in step) return { content: step.final, calls: [] };
  if ('tool' in step) return { content: '', calls: [step] };
  if ('tools' in step) return { content: '', calls: step.tools };
  return { content: 'Done.', calls: [] }; // a slow step answers after its delay
}

export function streamReply(
  res: ServerResponse,
  model: string,
  reply: Reply,
  usage: object,
  id: string,
) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const base = { id, object: 'chat.completion.chunk', created: 0, model };
  const send = (chunk: object) => res.write(`data: ${JSON.stringify({ ...base, ...chunk })}\n\n`);
  const delta = (d: object, finish: string | null = null) =>
    send({ choices: [{ index: 0, delta: d, finish_reason: finish }] });
  delta({ role: 'assistant', content: '' });
  // Split text in two pieces so clients that concatenate deltas are exercised.
  const half = Math.ceil(reply.content.length / 2);
  if (reply.content) delta({ content: reply.content.slice(0, half) });
  if (reply.content.length > half) delta({ content: reply.content.slice(half) });
  reply.calls.forEach((c, i) => {
    const fn = { name: c.tool, arguments: JSON.stringify(c.args) };
    delta({ tool_calls: [{ index: i, id: `${id}_call_${i}`, type: 'function', function: fn }] });
  });
  delta({}, reply.calls.length ? 'tool_calls' : 'stop');
  send({ choices: [], usage });
  res.end('data: [DONE]\n\n');
}

export function plainReply(
  res: ServerResponse,
  model: string,
  reply: Reply,
  usage: object,
  id: string,
) {
  const tool_calls = reply.calls.map((c, i) => ({
    id: `${id}_call_${i}`,
    type: 'function',
    function: { name: c.tool, arguments: JSON.stringify(c.args) },
  }));
  const message = {
    role: 'assistant',
    content: reply.content,
    ...(tool_calls.length && { tool_calls }),
  };
  const finish_reason = tool_calls.length ? 'tool_calls' : 'stop';
  sendJson(res, 200, {
    id,
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, message, finish_reason }],
    usage,
  });
}
