// The agent's transcript, step by step, for the trial page. The best source is the trial's
// cassette (every request and reply through the provider proxy: the model's text, its tool calls
// with their arguments, and the tool results the agent sent back next). Without one, Nanocoder's
// --json report still lists the tools it ran with their arguments, results and errors. The two
// are merged when both exist: only the report knows which tool calls failed.
import { existsSync, statSync } from 'node:fs';
import { parseNanocoderReport } from '../agent/nanocoder-report.js';
import { type Exchange, loadCassette } from '../provider/cassette.js';

export interface ToolCallView {
  id: string | null;
  name: string;
  /** Parsed arguments; the raw text when the model sent something that is not JSON. */
  arguments: unknown;
  result: string | null;
  error: string | null;
}

export interface StepView {
  /** 1-based: the n-th request to the model (cassette), or 1 for the report's single step. */
  n: number;
  text: string;
  reasoning: string | null;
  tools: ToolCallView[];
  /** HTTP status of the reply (0: none came); null when unknown (report only). */
  status: number | null;
  /** Why there was no answer: an error reply, a dropped connection, a budget. */
  failure: string | null;
  finish_reason: string | null;
  usage: { input: number; output: number } | null;
  ms: number | null;
  /** upstream | budget | replay (cassette only). */
  source: string | null;
}

export interface Transcript {
  source: 'cassette' | 'nanocoder-report' | 'none';
  system: string | null;
  /** The first user message, as the model saw it. */
  prompt: string | null;
  steps: StepView[];
  final_text: string | null;
  /** How the agent said it ended (Nanocoder's report: kind and message). */
  outcome: { kind: string; message: string | null } | null;
  /** Paths from the tool calls that succeeded (or whose outcome is unknown). */
  files: { read: string[]; written: string[] };
  notes: string[];
}

/** Cassettes above this are not parsed (the page would be unusable anyway); the file stays downloadable. */
const MAX_CASSETTE_BYTES = 64 * 1024 * 1024;

const READ_TOOLS: Record<string, string[]> = { read_file: ['path'] };
const WRITE_TOOLS: Record<string, string[]> = {
  write_file: ['path'],
  string_replace: ['path'],
  diff_edit: ['path'],
  file_op: ['path', 'destination'],
};

type Msg = {
  role?: string;
  content?: unknown;
  tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[];
  tool_call_id?: string;
};

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content))
    return content
      .map((p) => (typeof p === 'string' ? p : ((p as { text?: string })?.text ?? '')))
      .join('');
  return '';
}

function parseArgs(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw ?? {};
  if (!raw.trim()) return {};
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

interface Reply {
  text: string;
  reasoning: string;
  tools: { id: string | null; name: string; args: string }[];
  finish: string | null;
  error: string | null;
}

/** The model's reply from a recorded body: an SSE stream (deltas) or one JSON completion. */
export function parseReply(body: string): Reply {
  const r: Reply = { text: '', reasoning: '', tools: [], finish: null, error: null };
  const chunks: unknown[] = [];
  if (/^\s*(data|event|:)/.test(body)) {
    for (const line of body.split('\n')) {
      const m = line.match(/^data:\s?(.*)$/);
      if (!m || m[1].trim() === '[DONE]') continue;
      try {
        chunks.push(JSON.parse(m[1]));
      } catch {
        // a line cut short (the stream was dropped): what came before still counts
      }
    }
  } else {
    try {
      chunks.push(JSON.parse(body));
    } catch {
      r.error = body.slice(0, 2000) || null;
      return r;
    }
  }
  const byIndex = new Map<number, { id: string | null; name: string; args: string }>();
  for (const c of chunks) {
    const x = c as {
      choices?: {
        delta?: Record<string, unknown>;
        message?: Record<string, unknown>;
        finish_reason?: string | null;
      }[];
      error?: { message?: string } | string;
    };
    if (x?.error)
      r.error =
        typeof x.error === 'string' ? x.error : (x.error.message ?? JSON.stringify(x.error));
    const choice = x?.choices?.[0];
    if (!choice) continue;
    const d = (choice.delta ?? choice.message ?? {}) as {
      content?: unknown;
      reasoning_content?: unknown;
      reasoning?: unknown;
      tool_calls?: {
        index?: number;
        id?: string;
        function?: { name?: string; arguments?: string };
      }[];
    };
    r.text += textOf(d.content);
    r.reasoning += textOf(d.reasoning_content ?? d.reasoning);
    (d.tool_calls ?? []).forEach((tc, i) => {
      const k = tc.index ?? (choice.message ? i : 0);
      const t = byIndex.get(k) ?? { id: null, name: '', args: '' };
      if (tc.id) t.id = tc.id;
      if (tc.function?.name) t.name += tc.function.name;
      if (tc.function?.arguments) t.args += tc.function.arguments;
      byIndex.set(k, t);
    });
    if (choice.finish_reason) r.finish = choice.finish_reason;
  }
  r.tools = [...byIndex.entries()].sort((a, b) => a[0] - b[0]).map(([, t]) => t);
  return r;
}

function fromCassette(exchanges: Exchange[]): Omit<Transcript, 'outcome' | 'files' | 'notes'> {
  // Tool results travel in the requests after the call: collect them by tool_call_id.
  const results = new Map<string, string>();
  let system: string | null = null;
  let prompt: string | null = null;
  for (const ex of exchanges) {
    const msgs = ((ex.request as { messages?: Msg[] })?.messages ?? []) as Msg[];
    for (const m of msgs) {
      if (m.role === 'tool' && m.tool_call_id) results.set(m.tool_call_id, textOf(m.content));
      if (m.role === 'system' && system === null) system = textOf(m.content);
      if (m.role === 'user' && prompt === null) prompt = textOf(m.content);
    }
  }
  const steps = exchanges.map((ex, i): StepView => {
    const res = ex.response;
    const ok = res.status >= 200 && res.status < 300;
    const reply = res.body ? parseReply(res.body) : undefined;
    const failure = ok
      ? (reply?.error ?? null)
      : res.status === 0
        ? `no response: ${res.error ?? 'the connection failed or was dropped'}`
        : `HTTP ${res.status}: ${(reply?.error ?? res.body ?? '').slice(0, 2000)}`;
    return {
      n: i + 1,
      text: ok ? (reply?.text ?? '') : '',
      reasoning: ok && reply?.reasoning ? reply.reasoning : null,
      tools: ok
        ? (reply?.tools ?? []).map((t) => ({
            id: t.id,
            name: t.name,
            arguments: parseArgs(t.args),
            result: t.id ? (results.get(t.id) ?? null) : null,
            error: null,
          }))
        : [],
      status: res.status,
      failure,
      finish_reason: reply?.finish ?? null,
      usage: ex.usage ? { input: ex.usage.input, output: ex.usage.output } : null,
      ms: ex.total_ms ?? null,
      source: ex.source,
    };
  });
  const last = [...steps].reverse().find((s) => s.status !== null && s.status < 300);
  return { source: 'cassette', system, prompt, steps, final_text: last?.text || null };
}

type ReportCall = {
  name: string;
  arguments: Record<string, unknown>;
  result: string | null;
  error: string | null;
};

/**
 * Nanocoder's report lists the tools it executed, in order (calls to unknown tools never reach
 * it). Walk the cassette's calls in order and take the report's error (and result, when the
 * cassette has none: the run ended before another request carried it) from the next report
 * entry of the same name.
 */
function mergeReport(steps: StepView[], calls: ReportCall[]): number {
  let k = 0;
  let matched = 0;
  for (const s of steps)
    for (const t of s.tools) {
      if (k >= calls.length) return matched;
      if (calls[k].name !== t.name) continue;
      t.error = calls[k].error;
      t.result ??= calls[k].result;
      k++;
      matched++;
    }
  return matched;
}

function filesOf(steps: StepView[]): Transcript['files'] {
  const read = new Set<string>();
  const written = new Set<string>();
  for (const s of steps)
    for (const t of s.tools) {
      if (t.error) continue;
      const args = (t.arguments ?? {}) as Record<string, unknown>;
      for (const [tools, into] of [
        [READ_TOOLS, read],
        [WRITE_TOOLS, written],
      ] as const)
        for (const key of tools[t.name] ?? [])
          if (typeof args[key] === 'string' && args[key]) into.add(args[key] as string);
    }
  return { read: [...read], written: [...written] };
}

/** The transcript of one trial from its artifacts: the cassette file and the agent's stdout. */
export function buildTranscript(input: {
  cassette: string | null;
  agentStdout: string | null;
}): Transcript {
  const notes: string[] = [];
  let base: Omit<Transcript, 'outcome' | 'files' | 'notes'> = {
    source: 'none',
    system: null,
    prompt: null,
    steps: [],
    final_text: null,
  };
  if (input.cassette && existsSync(input.cassette)) {
    const size = statSync(input.cassette).size;
    if (size > MAX_CASSETTE_BYTES)
      notes.push(`the cassette is ${Math.round(size / 2 ** 20)} MiB: not shown, download it below`);
    else {
      try {
        base = fromCassette(loadCassette(input.cassette).exchanges);
      } catch (e) {
        notes.push(`the cassette could not be read: ${(e as Error).message}`);
      }
    }
  }
  const parsed = input.agentStdout?.trim() ? parseNanocoderReport(input.agentStdout) : undefined;
  const report = parsed?.ok ? parsed.report : undefined;
  if (report && base.source === 'cassette') {
    const matched = mergeReport(base.steps, report.toolCalls);
    if (matched < report.toolCalls.length)
      notes.push(
        `${report.toolCalls.length - matched} of Nanocoder's ${report.toolCalls.length} reported tool calls did not match the cassette's`,
      );
  } else if (report) {
    // No cassette (a run that recorded elsewhere, or an older one): the report's calls are the
    // transcript, without the model's turns.
    base = {
      source: 'nanocoder-report',
      system: null,
      prompt: null,
      steps: report.toolCalls.length
        ? [
            {
              n: 1,
              text: '',
              reasoning: null,
              tools: report.toolCalls.map((c) => ({ id: null, ...c })),
              status: null,
              failure: null,
              finish_reason: null,
              usage: null,
              ms: null,
              source: null,
            },
          ]
        : [],
      final_text: report.finalText || null,
    };
    notes.push(
      'no cassette: the tool calls come from Nanocoder\u2019s report, without the model\u2019s turns',
    );
  }
  return {
    ...base,
    final_text: report?.finalText || base.final_text,
    outcome: report ? { kind: report.kind, message: report.message ?? null } : null,
    files: filesOf(base.steps),
    notes,
  };
}
