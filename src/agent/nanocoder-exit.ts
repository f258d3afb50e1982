// Why a Nanocoder run ended. Model-server failures leave stdout empty and only show up as one
// line on stderr (Nanocoder's error-parser wording), so they are classified from that text.
// Patterns come from outputs captured from the real binary (test/fixtures/nanocoder/).

import { classifyError, type ErrorClass, type Refusal, refusalOf } from '../provider/kinds.js';
import type { NanocoderReport } from './nanocoder-report.js';
import type { ExitKind } from './types.js';

export interface NanocoderExitFacts {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** NanoBench's wall-clock limit killed it. */
  timedOut: boolean;
  /** NanoBench stopped it because the run was cancelled. */
  aborted?: boolean;
  /** The validated --json report, when stdout held one. */
  report?: NanocoderReport;
  stderr: string;
}

// Order matters: a context error can arrive as a 400 "Bad request: ..." and must not be read as
// anything else; quota before rate limit because both come from HTTP 429.
const STDERR_RULES: [RegExp, ExitKind][] = [
  // OpenAI's and llama.cpp's wording, Nanocoder's own, Anthropic's and Gemini's (Nanocoder prints
  // "Bad request: <the provider's message>" for a 400).
  [
    /maximum context length|exceeds the available context size|Context too large|prompt is too long|exceeds the maximum number of tokens/i,
    'context_exceeded',
  ],
  // Nanocoder prints "Rate limit: <message>" for 429s mentioning quota or a usage limit, "Request
  // failed (402): ..." for a 402, and Anthropic's empty balance is a 400 "Bad request: ...".
  [
    /exceeded your current quota|Rate limit: .*(usage limit|quota)|Request failed \(402\)|credit balance is too low/i,
    'quota_exceeded',
  ],
  [/Rate limit exceeded/i, 'rate_limited'],
  // Its wording for 401, 403 and 404 (dist/ai-sdk-client/error-handling/error-parser.js).
  [/Authentication failed: |Access forbidden: /, 'auth_failed'],
  [/Model not found: /, 'model_not_found'],
  // Anthropic's 529 "Overloaded" is not one of the statuses Nanocoder calls a server error.
  [/Server error:|Request failed \(5\d\d\)/, 'server_error'],
  // "other side closed": undici's message when the server drops the connection without replying.
  [/Connection failed|^other side closed$/, 'unreachable'],
  [/Request timed out/, 'request_timeout'],
];

/** Match one message against the failure patterns; the last matching line of a text wins. */
export function classifyMessage(text: string): ExitKind | undefined {
  const lines = text.split('\n').reverse();
  for (const line of lines) {
    for (const [re, kind] of STDERR_RULES) if (re.test(line)) return kind;
  }
  return undefined;
}

export function classifyNanocoderExit(f: NanocoderExitFacts): ExitKind {
  if (f.timedOut) return 'timeout';
  if (f.aborted) return 'signal';
  const r = f.report;
  if (r) {
    if (r.kind === 'success') return f.exitCode === 0 ? 'success' : 'error';
    if (r.kind === 'tool-approval-required') return 'tool_approval_required';
    return classifyMessage(r.message ?? '') ?? 'error';
  }
  // No report: a crash, a model-server failure, or an outside signal.
  const fromStderr = classifyMessage(f.stderr);
  if (fromStderr) return fromStderr;
  if (f.signal !== null) return 'signal';
  // SIGTERM/SIGINT from outside make Nanocoder shut down gracefully with exit 0 and no report.
  return 'error';
}

/** The provider's refusal behind each exit kind Nanocoder names (its own words). */
const FROM_REFUSAL: Record<Refusal, ExitKind> = {
  auth: 'auth_failed',
  billing: 'quota_exceeded',
  model_not_found: 'model_not_found',
  rate_limited: 'rate_limited',
  server_error: 'server_error',
};

/** What the proxy saw the trial end on: the last reply, when it failed. */
export interface LastError {
  status: number;
  message: string;
  /** The proxy's reading in the provider's own format; records from before it have none. */
  class?: string;
}

/** The provider's refusal in the last reply, read from its status and its format's error. */
export function refusalIn(last: LastError): Refusal | undefined {
  const cls = (last.class as ErrorClass | undefined) ?? classifyError(last.status, last.message);
  return refusalOf(last.status, cls);
}

/**
 * The agent's own wording decides first. When it only says "error", the provider proxy's record
 * of the last reply is a neutral second witness: a context-length 400 there means the agent
 * stopped on a full context (scoring rule 1), a 401, 402, 404, 429 or 5xx that the provider
 * refused service (an infra error, src/trial/agent.ts).
 */
export function exitKindWithProxy(kind: ExitKind, lastError?: LastError): ExitKind {
  if (kind !== 'error' || !lastError) return kind;
  const cls =
    (lastError.class as ErrorClass | undefined) ??
    classifyError(lastError.status, lastError.message);
  if (cls === 'context_length') return 'context_exceeded';
  const refusal = refusalOf(lastError.status, cls);
  return refusal ? FROM_REFUSAL[refusal] : kind;
}
