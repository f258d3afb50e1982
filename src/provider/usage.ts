// Counting what a trial cost, from the wire: token usage parsed out of SSE streams and JSON
// replies, and the per-trial tally the proxy keeps (requests, retries, latency, errors, cost).
import { StringDecoder } from 'node:string_decoder';

export interface Usage {
  input: number;
  output: number;
}

/** Usage block of one OpenAI-style object (chunk or completion), if it carries one. */
export function usageOf(obj: unknown): Usage | undefined {
  const u = (obj as { usage?: Record<string, unknown> } | null)?.usage;
  if (!u || typeof u !== 'object') return undefined;
  const input = u.prompt_tokens ?? u.input_tokens;
  const output = u.completion_tokens ?? u.output_tokens;
  if (typeof input !== 'number' && typeof output !== 'number') return undefined;
  return {
    input: typeof input === 'number' ? input : 0,
    output: typeof output === 'number' ? output : 0,
  };
}

/** Characters of generated text and tool arguments in a chunk or completion (for estimates). */
function generatedChars(obj: unknown): number {
  const choices = (obj as { choices?: unknown[] } | null)?.choices;
  if (!Array.isArray(choices)) return 0;
  let n = 0;
  for (const c of choices as { delta?: Msg; message?: Msg }[]) {
    const m = c?.delta ?? c?.message;
    if (typeof m?.content === 'string') n += m.content.length;
    for (const t of m?.tool_calls ?? []) n += (t?.function?.arguments ?? '').length;
  }
  return n;
}
type Msg = { content?: unknown; tool_calls?: { function?: { arguments?: string } }[] };

/** What one reply body told us. */
export interface ReplyFacts {
  usage?: Usage;
  /** Message of an error object in the reply (an error reply, or an SSE error event). */
  error?: string;
  outputChars: number;
}

/** Reads an SSE stream piece by piece as it passes through; never holds more than one line. */
export class SseScanner {
  private readonly decoder = new StringDecoder('utf8');
  private rest = '';
  readonly facts: ReplyFacts = { outputChars: 0 };

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
    const line = raw.replace(/\r$/, '');
    if (!line.startsWith('data:')) return;
    const data = line.slice(5).trim();
    if (!data || data === '[DONE]') return;
    let obj: unknown;
    try {
      obj = JSON.parse(data);
    } catch {
      return;
    }
    this.facts.usage = usageOf(obj) ?? this.facts.usage;
    this.facts.outputChars += generatedChars(obj);
    const err = (obj as { error?: { message?: unknown } }).error;
    if (err) this.facts.error = typeof err.message === 'string' ? err.message : 'error event';
  }
}

/** Facts from a whole (non-streamed) reply body; `sse` when it is an event stream. */
export function replyFacts(body: string, sse: boolean): ReplyFacts {
  if (sse) {
    const s = new SseScanner();
    s.push(Buffer.from(body));
    return s.end();
  }
  try {
    const obj = JSON.parse(body);
    const err = obj?.error;
    const error = err ? String(err.message ?? err.code ?? 'error') : undefined;
    return { usage: usageOf(obj), outputChars: generatedChars(obj), ...(error && { error }) };
  } catch {
    return { outputChars: 0 };
  }
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
      },
      temperature_sent: this.temperatureSent,
      ...(this.temperatureNote && { temperature_note: this.temperatureNote }),
    };
  }
}
