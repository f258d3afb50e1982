// Why a Nanocoder run ended. Model-server failures leave stdout empty and only show up as one
// line on stderr (Nanocoder's error-parser wording), so they are classified from that text.
// Patterns come from outputs captured from the real binary (test/fixtures/nanocoder/).

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
  // Nanocoder prints "Rate limit: <message>" for 429s mentioning quota or a usage limit.
  [/exceeded your current quota|Rate limit: .*usage limit/i, 'quota_exceeded'],
  [/Rate limit exceeded/i, 'rate_limited'],
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

const STOPPING: ExitKind[] = ['context_exceeded', 'rate_limited', 'quota_exceeded'];

const FROM_CLASS: Record<string, ExitKind> = {
  context_length: 'context_exceeded',
  rate_limit: 'rate_limited',
  quota: 'quota_exceeded',
};

/**
 * The agent's own wording decides first. When it only says "error", the provider proxy's record
 * of the last reply is a neutral second witness: a 429 or a context-length 400 there means the
 * agent stopped on the provider, which scoring rule 1 needs to know. The proxy classifies the
 * reply in its provider's own format (`class`); records from before that have status and text.
 */
export function exitKindWithProxy(
  kind: ExitKind,
  lastError?: { status: number; message: string; class?: string },
): ExitKind {
  if (kind !== 'error' || !lastError) return kind;
  if (lastError.class) return FROM_CLASS[lastError.class] ?? kind;
  const seen =
    classifyMessage(lastError.message) ??
    (/maximum context length|context_length_exceeded|context size/i.test(lastError.message)
      ? 'context_exceeded'
      : undefined) ??
    (lastError.status === 429
      ? /quota/i.test(lastError.message)
        ? 'quota_exceeded'
        : 'rate_limited'
      : undefined);
  return seen && STOPPING.includes(seen) ? seen : kind;
}
