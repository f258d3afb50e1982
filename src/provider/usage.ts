// Counting what a trial cost, from the wire: token usage parsed out of the SSE streams and JSON
// replies of each provider kind as they pass, and the per-trial tally the proxy keeps (requests,
// retries, latency, errors, cost).
import { StringDecoder } from 'node:string_decoder';
import { DEFAULT_KIND, errorOf, type ProviderKind } from './kinds.js';

export interface Usage {
  input: number;
  output: number;
}

type Obj = Record<string, unknown>;
const num = (x: unknown) => (typeof x === 'number' && Number.isFinite(x) ? x : 0);
const isNum = (x: unknown) => typeof x === 'number';

/** Usage block of one OpenAI-style object (chunk or completion), if it carries one. */
export function usageOf(obj: unknown): Usage | undefined {
  const u = (obj as { usage?: Record<string, unknown> } | null)?.usage;
  if (!u || typeof u !== 'object') return undefined;
  const input = u.prompt_tokens ?? u.input_tokens;
  const output = u.completion_tokens ?? u.output_tokens;
  if (!isNum(input) && !isNum(output)) return undefined;
  return { input: num(input), output: num(output) };
}

type Msg = { content?: unknown; tool_calls?: { function?: { arguments?: string } }[] };

/** Characters of generated text and tool arguments in a chunk or completion (for estimates). */
function chatChars(obj: Obj): number {
  const choices = obj.choices;
  if (!Array.isArray(choices)) return 0;
  let n = 0;
  for (const c of choices as { delta?: Msg; message?: Msg }[]) {
    const m = c?.delta ?? c?.message;
    if (typeof m?.content === 'string') n += m.content.length;
    for (const t of m?.tool_calls ?? []) n += (t?.function?.arguments ?? '').length;
  }
  return n;
}

/** What one reply body told us. */
export interface ReplyFacts {
  usage?: Usage;
  /** Message of an error object in the reply (an error reply, or an error event in a stream). */
  error?: string;
  /** The error's code, type or status as the format names it (e.g. context_length_exceeded). */
  errorCode?: string;
  outputChars: number;
}

// Anthropic counts cache writes and reads apart from input_tokens; all of them were prompt.
const anthropicInput = (u: Obj) =>
  num(u.input_tokens) + num(u.cache_creation_input_tokens) + num(u.cache_read_input_tokens);

/**
 * Read one JSON object of a reply (an SSE event's data, or a whole body) into `f`. Where each
 * format keeps its usage: OpenAI chat a `usage` chunk; Anthropic `message_start` (input) and
 * `message_delta` (output so far); Gemini `usageMetadata` on chunks (running totals); the
 * Responses API `response.completed` (or incomplete/failed).
 */
export function observe(kind: ProviderKind, obj: unknown, f: ReplyFacts): void {
  if (!obj || typeof obj !== 'object') return;
  const o = obj as Obj;
  const err = errorOf(o);
  if (err) {
    f.error = err.message;
    if (err.code) f.errorCode = err.code;
  }
  switch (kind) {
    case 'openai-compatible':
      f.usage = usageOf(o) ?? f.usage;
      f.outputChars += chatChars(o);
      break;
    case 'anthropic':
      observeAnthropic(o, f);
      break;
    case 'google':
      observeGoogle(o, f);
      break;
    case 'openai-responses':
      observeResponses(o, f);
      break;
  }
}

function observeAnthropic(o: Obj, f: ReplyFacts): void {
  if (o.type === 'message_start') {
    const u = ((o.message as Obj | undefined)?.usage ?? {}) as Obj;
    f.usage = { input: anthropicInput(u), output: num(u.output_tokens) };
  } else if (o.type === 'message_delta') {
    const u = (o.usage ?? {}) as Obj;
    const prev = f.usage ?? { input: 0, output: 0 };
    // output_tokens is cumulative; input only when the API restates it.
    f.usage = {
      input: isNum(u.input_tokens) ? anthropicInput(u) : prev.input,
      output: isNum(u.output_tokens) ? num(u.output_tokens) : prev.output,
    };
  } else if (o.type === 'content_block_delta') {
    const d = (o.delta ?? {}) as Obj;
    for (const k of ['text', 'partial_json', 'thinking'])
      if (typeof d[k] === 'string') f.outputChars += (d[k] as string).length;
  } else if (o.type === 'message') {
    const u = (o.usage ?? {}) as Obj;
    f.usage = { input: anthropicInput(u), output: num(u.output_tokens) };
    for (const c of (o.content as Obj[] | undefined) ?? []) {
      if (typeof c?.text === 'string') f.outputChars += c.text.length;
      if (c?.type === 'tool_use') f.outputChars += JSON.stringify(c.input ?? {}).length;
    }
  }
}

function observeGoogle(o: Obj, f: ReplyFacts): void {
  const u = o.usageMetadata as Obj | undefined;
  // Every chunk may restate the running totals; the last one is the reply's.
  if (u && typeof u === 'object')
    f.usage = {
      input: num(u.promptTokenCount) + num(u.toolUsePromptTokenCount),
      output: num(u.candidatesTokenCount) + num(u.thoughtsTokenCount),
    };
  for (const c of (o.candidates as Obj[] | undefined) ?? [])
    for (const p of ((c?.content as Obj | undefined)?.parts as Obj[] | undefined) ?? []) {
      if (typeof p?.text === 'string') f.outputChars += p.text.length;
      if (p?.functionCall)
        f.outputChars += JSON.stringify((p.functionCall as Obj).args ?? {}).length;
    }
}

function observeResponses(o: Obj, f: ReplyFacts): void {
  const t = o.type;
  const usage = (u: unknown) => {
    const x = (u ?? undefined) as Obj | undefined;
    if (x && (isNum(x.input_tokens) || isNum(x.output_tokens)))
      f.usage = { input: num(x.input_tokens), output: num(x.output_tokens) };
  };
  if (t === 'response.completed' || t === 'response.incomplete' || t === 'response.failed')
    usage((o.response as Obj | undefined)?.usage);
  else if (
    t === 'response.output_text.delta' ||
    t === 'response.function_call_arguments.delta' ||
    t === 'response.reasoning_summary_text.delta'
  )
    f.outputChars += typeof o.delta === 'string' ? o.delta.length : 0;
  else if (o.object === 'response') {
    usage(o.usage);
    for (const item of (o.output as Obj[] | undefined) ?? []) {
      if (typeof item?.arguments === 'string') f.outputChars += item.arguments.length;
      for (const c of (item?.content as Obj[] | undefined) ?? [])
        if (typeof c?.text === 'string') f.outputChars += c.text.length;
    }
  }
}

/** Reads an SSE stream piece by piece as it passes through; never holds more than one line. */
export class SseScanner {
  private readonly decoder = new StringDecoder('utf8');
  private rest = '';
  readonly facts: ReplyFacts = { outputChars: 0 };

  constructor(private readonly kind: ProviderKind = DEFAULT_KIND) {}

  push(chunk: Buffer): void {
    this.rest += this.decoder.write(chunk);
    let nl = this.rest.indexOf('\n');
    while (nl >= 0) {
      this.line(this.rest.slice(0, nl));
      this.rest = this.rest.slice(nl + 1);
      nl = this.rest.indexOf('\n');
    }
  }

  end(): ReplyFacts {
    this.rest += this.decoder.end();
    if (this.rest) this.line(this.rest);
    this.rest = '';
    return this.facts;
  }

  private line(raw: string): void {
    // Lines end in \n, \r\n or a lone \r (Gemini sends \r\n); event: lines carry no data.
    for (const part of raw.split('\r')) {
      if (!part.startsWith('data:')) continue;
      const data = part.slice(5).trim();
      if (!data || data === '[DONE]') continue;
      try {
        observe(this.kind, JSON.parse(data), this.facts);
      } catch {
        // not JSON: not ours to count
      }
    }
  }
}

/** Facts from a whole (non-streamed) reply body; `sse` when it is an event stream. */
export function replyFacts(body: string, sse: boolean, kind: ProviderKind = DEFAULT_KIND) {
  if (sse) {
    const s = new SseScanner(kind);
    s.push(Buffer.from(body));
    return s.end();
  }
  const f: ReplyFacts = { outputChars: 0 };
  try {
    observe(kind, JSON.parse(body), f);
  } catch {
    // not JSON
  }
  return f;
}

/** Deterministic token estimate used only when the upstream reports no usage (budgets). */
export const estimateTokens = (chars: number) => Math.ceil(chars / 4);

export interface Price {
  input: number;
  output: number;
}

/** The temperature on one accepted upstream request; null = none sent (provider default). */
export type SentTemperature = number | null;

function quantile(sorted: number[], q: number): number | null {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
}

/** The per-trial tally. All counts are of requests the agent made, unless named upstream_. */
export class TrialTally {
  requests = 0;
  upstreamRequests = 0;
  retries = 0;
  input = 0;
  output = 0;
  /** Replies without a usage block; their tokens are estimated for budgets only. */
  usageMissing = 0;
  estimated = 0;
  errors: Record<string, number> = {};
  ttfb: number[] = [];
  total: number[] = [];
  /** Time requests waited at the proxy for a request slot of their provider (not in `total`). */
  queuedMs = 0;
  temperatures = new Set<SentTemperature>();
  temperatureNote?: string;

  addUsage(facts: ReplyFacts, requestChars: number): void {
    if (facts.usage) {
      this.input += facts.usage.input;
      this.output += facts.usage.output;
    } else {
      this.usageMissing++;
      this.estimated += estimateTokens(requestChars) + estimateTokens(facts.outputChars);
    }
  }

  addError(kind: string): void {
    this.errors[kind] = (this.errors[kind] ?? 0) + 1;
  }

  /** Tokens a budget counts: reported usage, plus estimates where none was reported. */
  get budgetTokens(): number {
    return this.input + this.output + this.estimated;
  }

  /** Sent temperature, or "mixed" when it varied; null when none was sent (or no request). */
  get temperatureSent(): SentTemperature | 'mixed' {
    if (this.temperatures.size > 1) return 'mixed';
    return this.temperatures.size ? [...this.temperatures][0] : null;
  }

  summary(price?: Price) {
    const ttfb = [...this.ttfb].sort((a, b) => a - b);
    const total = [...this.total].sort((a, b) => a - b);
    const cost =
      price && !this.usageMissing
        ? Math.round(((this.input * price.input + this.output * price.output) / 1e6) * 1e6) / 1e6
        : null;
    return {
      requests: this.requests,
      upstream_requests: this.upstreamRequests,
      retries: this.retries,
      tokens: { input: this.input, output: this.output, total: this.input + this.output },
      usage_missing: this.usageMissing,
      ...(this.usageMissing && { estimated_tokens: this.estimated }),
      cost_usd: cost,
      errors: this.errors,
      latency_ms: {
        ttfb_median: quantile(ttfb, 0.5),
        ttfb_p95: quantile(ttfb, 0.95),
        total_median: quantile(total, 0.5),
        total_p95: quantile(total, 0.95),
        total_sum: Math.round(total.reduce((a, b) => a + b, 0)),
        queued_sum: Math.round(this.queuedMs),
      },
      temperature_sent: this.temperatureSent,
      ...(this.temperatureNote && { temperature_note: this.temperatureNote }),
    };
  }
}
