// The scripted model server's replies in each wire format Nanocoder speaks (src/provider/kinds.ts):
// OpenAI chat completions (scripted-replies.ts), Anthropic Messages, Gemini generateContent and
// OpenAI Responses, streamed (SSE) or not, plus each format's failures. Shapes follow what the AI
// SDK packages Nanocoder 1.30 bundles accept (@ai-sdk/anthropic, @ai-sdk/google, @ai-sdk/openai
// chunk schemas). A script is data, not a model: these are only its envelopes.
import type { ServerResponse } from 'node:http';
import { contextMessage, errorReply, type ProviderKind } from './kinds.js';
import type { FailKind } from './script-schema.js';
import {
  CONTEXT_LIMIT,
  errorBody,
  overflowOf,
  plainReply,
  type Reply,
  sendFailure,
  sendJson,
  streamReply,
} from './scripted-replies.js';

export interface ReplyArgs {
  model: string;
  reply: Reply;
  input: number;
  output: number;
  /** Stable id of this reply (task, attempt, step). */
  id: string;
  stream: boolean;
}

export interface ScriptedFormat {
  /** Assistant turns in the request's conversation: which step of the script comes next. */
  turns(body: Record<string, unknown>): number;
  reply(res: ServerResponse, a: ReplyArgs): void;
  /** A scripted failure; `wait` is its retry-after header (the step's retry_after_sec). */
  failure(
    res: ServerResponse,
    kind: FailKind,
    promptTokens: number,
    model: string,
    wait: Record<string, string>,
  ): void;
  /** A server-side error (unknown model or task) in the format. */
  error(res: ServerResponse, status: number, message: string, code: string): void;
}

type Item = Record<string, unknown>;
const list = (x: unknown) => (Array.isArray(x) ? (x as Item[]) : []);

function sse(res: ServerResponse, events: [string | null, object][], eol = '\n'): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [event, data] of events)
    res.write(`${event ? `event: ${event}${eol}` : ''}data: ${JSON.stringify(data)}${eol}${eol}`);
  res.end();
}

/** Text in two pieces, so clients that concatenate deltas are exercised. */
const halves = (s: string) => {
  const h = Math.ceil(s.length / 2);
  return [s.slice(0, h), s.slice(h)].filter(Boolean);
};

// ---- OpenAI chat completions ----

const chat: ScriptedFormat = {
  turns: (b) => list(b.messages).filter((m) => m?.role === 'assistant').length,
  reply(res, a) {
    const usage = {
      prompt_tokens: a.input,
      completion_tokens: a.output,
      total_tokens: a.input + a.output,
    };
    if (a.stream) streamReply(res, a.model, a.reply, usage, a.id);
    else plainReply(res, a.model, a.reply, usage, a.id);
  },
  failure: (res, kind, promptTokens, model, wait) =>
    sendFailure(res, kind, promptTokens, model, wait),
  error: (res, status, message, code) =>
    sendJson(res, status, errorBody(message, 'invalid_request_error', code)),
};

// ---- Anthropic Messages ----

const anthropic: ScriptedFormat = {
  turns: (b) => list(b.messages).filter((m) => m?.role === 'assistant').length,
  reply(res, a) {
    const calls = a.reply.calls.map((c, i) => ({ id: `toolu_${a.id}_${i}`, ...c }));
    const stop_reason = calls.length ? 'tool_use' : 'end_turn';
    if (!a.stream) {
      const content = [
        ...(a.reply.content ? [{ type: 'text', text: a.reply.content }] : []),
        ...calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.tool, input: c.args })),
      ];
      return sendJson(res, 200, {
        id: `msg_${a.id}`,
        type: 'message',
        role: 'assistant',
        model: a.model,
        content,
        stop_reason,
        stop_sequence: null,
        usage: { input_tokens: a.input, output_tokens: a.output },
      });
    }
    const events: [string, object][] = [];
    const ev = (type: string, data: object) => events.push([type, { type, ...data }]);
    ev('message_start', {
      message: {
        id: `msg_${a.id}`,
        type: 'message',
        role: 'assistant',
        model: a.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: a.input, output_tokens: 1 },
      },
    });
    let index = 0;
    if (a.reply.content) {
      ev('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const text of halves(a.reply.content))
        ev('content_block_delta', { index, delta: { type: 'text_delta', text } });
      ev('content_block_stop', { index: index++ });
    }
    for (const c of calls) {
      ev('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: c.id, name: c.tool, input: {} },
      });
      for (const partial_json of halves(JSON.stringify(c.args)))
        ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json } });
      ev('content_block_stop', { index: index++ });
    }
    ev('message_delta', {
      delta: { stop_reason, stop_sequence: null },
      usage: { output_tokens: a.output },
    });
    ev('message_stop', {});
    sse(res, events);
  },
  failure(res, kind, promptTokens, _model, wait) {
    const err = (status: number, message: string, code: string, headers = {}) =>
      sendJson(res, status, errorReply('anthropic', status, message, code), headers);
    const context = contextMessage('anthropic', '', {
      limit: CONTEXT_LIMIT,
      used: overflowOf(promptTokens),
    });
    switch (kind) {
      case 'rate_limit':
        return err(
          429,
          'Number of request tokens has exceeded your per-minute rate limit (scripted).',
          'rate_limit',
          wait,
        );
      case 'quota':
        // Anthropic answers an empty balance with a 400, not a 429.
        return err(
          400,
          'Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.',
          'invalid_request',
        );
      case 'context_http':
        return err(400, context, 'invalid_request');
      case 'context_stream':
        return sse(res, [
          ['error', { type: 'error', error: { type: 'invalid_request_error', message: context } }],
        ]);
      case 'server_error':
        return err(500, 'The scripted model server was told to fail (server_error).', 'api', wait);
      case 'slow':
        return undefined;
    }
  },
  error: (res, status, message, code) =>
    sendJson(res, status, errorReply('anthropic', status, message, code)),
};

// ---- Gemini generateContent ----

const google: ScriptedFormat = {
  turns: (b) => list(b.contents).filter((c) => c?.role === 'model').length,
  reply(res, a) {
    const usageMetadata = {
      promptTokenCount: a.input,
      candidatesTokenCount: a.output,
      totalTokenCount: a.input + a.output,
    };
    const calls = a.reply.calls.map((c) => ({ functionCall: { name: c.tool, args: c.args } }));
    const chunk = (parts: object[], last: boolean) => ({
      candidates: [
        {
          content: { role: 'model', parts },
          ...(last && { finishReason: 'STOP' }),
          index: 0,
        },
      ],
      ...(last && { usageMetadata }),
      modelVersion: a.model,
      responseId: a.id,
    });
    if (!a.stream) {
      const parts = [...(a.reply.content ? [{ text: a.reply.content }] : []), ...calls];
      return sendJson(res, 200, chunk(parts, true));
    }
    const pieces: object[][] = halves(a.reply.content).map((text) => [{ text }]);
    if (calls.length) pieces.push(calls);
    if (!pieces.length) pieces.push([{ text: '' }]);
    // Gemini ends its SSE lines with \r\n.
    sse(
      res,
      pieces.map((p, i) => [null, chunk(p, i === pieces.length - 1)]),
      '\r\n',
    );
  },
  failure(res, kind, promptTokens, _model, wait) {
    const err = (status: number, message: string, headers = {}) =>
      sendJson(res, status, errorReply('google', status, message, ''), headers);
    const context = contextMessage('google', '', {
      limit: CONTEXT_LIMIT,
      used: overflowOf(promptTokens),
    });
    switch (kind) {
      case 'rate_limit':
        return err(429, 'Resource exhausted. Please try again later. (scripted)', wait);
      case 'quota':
        return err(
          429,
          'You exceeded your current quota, please check your plan and billing details.',
          wait,
        );
      case 'context_http':
        return err(400, context);
      case 'context_stream':
        return sse(res, [[null, errorReply('google', 400, context, '')]], '\r\n');
      case 'server_error':
        return err(500, 'The scripted model server was told to fail (server_error).', wait);
      case 'slow':
        return undefined;
    }
  },
  error: (res, status, message, code) =>
    sendJson(res, status, errorReply('google', status, message, code)),
};

// ---- OpenAI Responses ----

/** Assistant turns: runs of consecutive assistant-side items (messages, calls, reasoning). */
function responsesTurns(b: Record<string, unknown>): number {
  let turns = 0;
  let inTurn = false;
  for (const item of list(b.input)) {
    const assistant =
      item?.role === 'assistant' || item?.type === 'function_call' || item?.type === 'reasoning';
    if (assistant && !inTurn) turns++;
    inTurn = assistant;
  }
  return turns;
}

const responses: ScriptedFormat = {
  turns: responsesTurns,
  reply(res, a) {
    const usage = {
      input_tokens: a.input,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: a.output,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: a.input + a.output,
    };
    const message = a.reply.content
      ? {
          type: 'message',
          id: `msg_${a.id}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: a.reply.content, annotations: [] }],
        }
      : undefined;
    const calls = a.reply.calls.map((c, i) => ({
      type: 'function_call',
      id: `fc_${a.id}_${i}`,
      call_id: `call_${a.id}_${i}`,
      name: c.tool,
      arguments: JSON.stringify(c.args),
      status: 'completed',
    }));
    const output = [...(message ? [message] : []), ...calls];
    const response = {
      id: `resp_${a.id}`,
      object: 'response',
      created_at: 0,
      model: a.model,
      status: 'completed',
      incomplete_details: null,
      output,
      usage,
    };
    if (!a.stream) return sendJson(res, 200, response);
    let seq = 0;
    const events: [string, object][] = [];
    const ev = (type: string, data: object) =>
      events.push([type, { type, sequence_number: seq++, ...data }]);
    ev('response.created', {
      response: { ...response, status: 'in_progress', output: [], usage: null },
    });
    output.forEach((item, output_index) => {
      if (item.type === 'message') {
        ev('response.output_item.added', {
          output_index,
          item: { ...item, status: 'in_progress', content: [] },
        });
        for (const delta of halves(a.reply.content))
          ev('response.output_text.delta', {
            item_id: item.id,
            output_index,
            content_index: 0,
            delta,
          });
        ev('response.output_item.done', { output_index, item });
      } else {
        const call = item as (typeof calls)[number];
        ev('response.output_item.added', {
          output_index,
          item: { ...call, arguments: '', status: 'in_progress' },
        });
        for (const delta of halves(call.arguments))
          ev('response.function_call_arguments.delta', { item_id: call.id, output_index, delta });
        ev('response.function_call_arguments.done', {
          item_id: call.id,
          output_index,
          arguments: call.arguments,
        });
        ev('response.output_item.done', { output_index, item: call });
      }
    });
    ev('response.completed', { response });
    sse(res, events);
  },
  failure(res, kind, promptTokens, model, wait) {
    if (kind !== 'context_stream') return chat.failure(res, kind, promptTokens, model, wait);
    const message = contextMessage('openai-responses', '', {
      limit: CONTEXT_LIMIT,
      used: overflowOf(promptTokens),
    });
    sse(res, [
      [
        'response.created',
        {
          type: 'response.created',
          sequence_number: 0,
          response: { id: 'resp_failed', created_at: 0, model, status: 'in_progress' },
        },
      ],
      [
        'response.failed',
        {
          type: 'response.failed',
          sequence_number: 1,
          response: {
            id: 'resp_failed',
            status: 'failed',
            error: { code: 'context_length_exceeded', message },
            usage: null,
          },
        },
      ],
    ]);
  },
  error: chat.error,
};

export const SCRIPTED_FORMATS: Record<ProviderKind, ScriptedFormat> = {
  'openai-compatible': chat,
  anthropic,
  google,
  'openai-responses': responses,
};

/** Refusals of service, the same in every format: a status and the format's own error shape. */
const REFUSALS: Partial<Record<FailKind, { status: number; message: string; code: string }>> = {
  auth: { status: 401, message: 'Incorrect API key provided (scripted).', code: 'invalid_api_key' },
  forbidden: {
    status: 403,
    message: 'This key is not allowed to use the model (scripted).',
    code: 'permission_denied',
  },
  billing: {
    status: 402,
    message: 'Payment required: the account has no credit left (scripted).',
    code: 'payment_required',
  },
  model_not_found: {
    status: 404,
    message: 'The model does not exist or this key cannot use it (scripted).',
    code: 'model_not_found',
  },
};

/** Sends scripted failure `fail` in the format of `kind`, with retry-after `retryAfterSec`. */
export function sendScriptedFailure(
  kind: ProviderKind,
  res: ServerResponse,
  fail: FailKind,
  promptTokens: number,
  model: string,
  retryAfterSec = 0,
): void {
  const wait = { 'retry-after': String(retryAfterSec) };
  const refusal = REFUSALS[fail];
  if (refusal) {
    const body = errorReply(kind, refusal.status, refusal.message, refusal.code);
    sendJson(res, refusal.status, body, wait);
  } else SCRIPTED_FORMATS[kind].failure(res, fail, promptTokens, model, wait);
}
