// The bare agent's process (src/agent/bare.ts starts it in the trial's sandbox, in the workspace):
// reads its job (a JSON file named by argv[2]), talks to the model at the job's OpenAI-compatible
// endpoint (the provider proxy), applies the whole-file replacements of the model's answer and
// prints one JSON report (BareReport) on stdout. Only node builtins, bare-format.js and
// contained-path.js: nothing else of NanoBench is visible in the sandbox.
import { lstatSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { pathToFileURL } from 'node:url';
import { diskEscape } from '../util/contained-path.js';
import {
  BARE_PROMPT_VERSION,
  BARE_SYSTEM_PROMPT,
  type FileText,
  hintedPrompt,
  navigationPrompt,
  parseEdits,
  parseReads,
  readReply,
} from './bare-format.js';

export interface BareJob {
  baseUrl: string;
  apiKey: string;
  model: string;
  mode: 'hinted' | 'navigation';
  statement: string;
  requiredFiles: string[];
  maxReads: number;
  requestTimeoutMs: number;
  /** Where the conversation is written (the trial's scratch directory). */
  transcriptFile?: string;
}

export interface BareReport {
  prompt_version: string;
  /** edited: the change was applied; unusable: the model's answer could not be used. */
  outcome: 'edited' | 'unusable' | 'provider_error';
  reason?: string;
  /** provider_error: the HTTP status (0: no reply at all) and the provider's message. */
  status?: number;
  message?: string;
  requests: number;
  usage: { input: number; output: number };
  /** Files whose content the model saw (hinted: the required files; navigation: its READs). */
  files_read: string[];
  /** READ paths that named no file, or that were refused (outside the workspace, a directory). */
  files_refused: string[];
  files_changed: string[];
}

export interface Message {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export type ChatReply =
  | { ok: true; content: string; usage: { input: number; output: number } }
  | { ok: false; status: number; message: string };

export type Chat = (messages: Message[]) => Promise<ChatReply>;

/** Files read for the model bigger than this are refused (a model cannot use megabytes). */
export const MAX_READ_BYTES = 256 * 1024;

/** Directories the model may neither read nor write, anywhere in the tree. */
const PROTECTED = new Set(['.git']);

/** Why the model may not touch `rel` in the workspace; undefined when it may. */
export function refusePath(workspace: string, rel: string): string | undefined {
  const why = diskEscape(workspace, rel, true);
  if (why) return `${rel} ${why}`;
  const parts = posix.normalize(rel.replace(/\\/g, '/')).split('/');
  if (parts.some((p) => PROTECTED.has(p))) return `${rel} is inside a protected directory (.git)`;
  return undefined;
}

/** Every file of the workspace, relative and sorted (no .git, no node_modules). */
export function listFiles(workspace: string): string[] {
  const out: string[] = [];
  const walk = (dir: string, rel: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === '.git' || e.name === 'node_modules') continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(join(dir, e.name), r);
      else if (e.isFile()) out.push(r);
    }
  };
  walk(workspace, '');
  return out.sort();
}

/** A file's content for the model, or why it cannot have it. */
export function readForModel(workspace: string, rel: string): FileText | { refused: string } {
  const why = refusePath(workspace, rel);
  if (why) return { refused: why };
  const abs = join(workspace, rel);
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(abs);
  } catch {
    return { path: rel, content: null };
  }
  if (!st.isFile()) return { refused: `${rel} is not a file` };
  if (st.size > MAX_READ_BYTES) return { refused: `${rel} is over ${MAX_READ_BYTES} bytes` };
  return { path: rel, content: readFileSync(abs, 'utf8') };
}

/** Write every edit, or none: each path is checked before the first write. */
export function applyEdits(
  workspace: string,
  edits: { path: string; content: string }[],
): { ok: true; changed: string[] } | { ok: false; reason: string } {
  for (const e of edits) {
    const why = refusePath(workspace, e.path);
    if (why) return { ok: false, reason: `refused: ${why}` };
    try {
      if (lstatSync(join(workspace, e.path)).isDirectory())
        return { ok: false, reason: `refused: ${e.path} is a directory` };
    } catch {}
  }
  const changed: string[] = [];
  for (const e of edits) {
    const abs = join(workspace, e.path);
    try {
      mkdirSync(dirname(abs), { recursive: true });
      writeFileSync(abs, e.content);
    } catch (err) {
      return { ok: false, reason: `could not write ${e.path}: ${(err as Error).message}` };
    }
    changed.push(posix.normalize(e.path));
  }
  return { ok: true, changed };
}

/** The chat completions request, temperature 0, no streaming. */
export function httpChat(job: BareJob): Chat {
  return async (messages) => {
    let res: Response;
    try {
      res = await fetch(`${job.baseUrl.replace(/\/$/, '')}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${job.apiKey}` },
        body: JSON.stringify({ model: job.model, messages, temperature: 0, stream: false }),
        signal: AbortSignal.timeout(job.requestTimeoutMs),
      });
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      return { ok: false, status: 0, message: `${e.name}: ${e.cause?.code ?? e.message}` };
    }
    const text = await res.text().catch(() => '');
    let body: Record<string, unknown> | undefined;
    try {
      body = JSON.parse(text);
    } catch {}
    if (!res.ok) {
      const err = body?.error as { message?: string } | string | undefined;
      const message = typeof err === 'string' ? err : (err?.message ?? text.slice(0, 500));
      return { ok: false, status: res.status, message };
    }
    const choice = (body?.choices as { message?: { content?: unknown } }[] | undefined)?.[0];
    if (!choice?.message)
      return { ok: false, status: res.status, message: 'the reply holds no choices[0].message' };
    // No text (a null content, tool calls bare never offered): the model's answer, unusable.
    const content = typeof choice.message.content === 'string' ? choice.message.content : '';
    const u = body?.usage as { prompt_tokens?: number; completion_tokens?: number } | undefined;
    return {
      ok: true,
      content,
      usage: { input: u?.prompt_tokens ?? 0, output: u?.completion_tokens ?? 0 },
    };
  };
}

/** One trial of the bare agent, in `workspace`. */
export async function runBare(
  job: BareJob,
  workspace: string,
  chat: Chat = httpChat(job),
): Promise<BareReport> {
  const r: BareReport = {
    prompt_version: BARE_PROMPT_VERSION,
    outcome: 'unusable',
    requests: 0,
    usage: { input: 0, output: 0 },
    files_read: [],
    files_refused: [],
    files_changed: [],
  };
  const messages: Message[] = [{ role: 'system', content: BARE_SYSTEM_PROMPT }];
  const save = () => {
    if (job.transcriptFile) writeFileSync(job.transcriptFile, JSON.stringify(messages, null, 1));
  };
  if (job.mode === 'hinted') {
    const files = job.requiredFiles.map((p) => readForModel(workspace, p));
    const shown = files.filter((f): f is FileText => 'path' in f);
    r.files_read = shown.filter((f) => f.content !== null).map((f) => f.path);
    messages.push({ role: 'user', content: hintedPrompt(job.statement, shown) });
  } else {
    const list = listFiles(workspace);
    messages.push({ role: 'user', content: navigationPrompt(job.statement, list, job.maxReads) });
  }
  try {
    return await converse(job, workspace, chat, messages, r);
  } finally {
    save();
  }
}

async function converse(
  job: BareJob,
  workspace: string,
  chat: Chat,
  messages: Message[],
  r: BareReport,
): Promise<BareReport> {
  // Navigation: at most one READ round per file allowed, then the answer.
  const rounds = job.mode === 'navigation' ? job.maxReads + 1 : 1;
  for (let round = 0; round < rounds; round++) {
    const reply = await chat(messages);
    r.requests++;
    if (!reply.ok)
      return { ...r, outcome: 'provider_error', status: reply.status, message: reply.message };
    r.usage.input += reply.usage.input;
    r.usage.output += reply.usage.output;
    messages.push({ role: 'assistant', content: reply.content });
    const reads = parseReads(reply.content);
    const hasEdits = /^=== FILE:/m.test(reply.content);
    if (hasEdits || reads.length === 0 || job.mode === 'hinted')
      return finish(workspace, reply.content, r, reads.length > 0 && !hasEdits);
    messages.push({ role: 'user', content: serveReads(workspace, reads, job.maxReads, r) });
  }
  return { ...r, reason: `no change after ${rounds} replies (the read limit was reached)` };
}

function serveReads(workspace: string, reads: string[], maxReads: number, r: BareReport): string {
  const files: FileText[] = [];
  const refused: string[] = [];
  for (const p of reads) {
    if (r.files_read.length >= maxReads) {
      refused.push(`${p}: the limit of ${maxReads} files is reached`);
      continue;
    }
    const f = readForModel(workspace, p);
    if ('refused' in f) {
      refused.push(f.refused);
      r.files_refused.push(p);
    } else if (f.content === null) {
      refused.push(`${p}: no such file`);
      r.files_refused.push(p);
    } else {
      files.push(f);
      if (!r.files_read.includes(p)) r.files_read.push(p);
    }
  }
  return readReply(files, refused, maxReads - r.files_read.length);
}

function finish(workspace: string, reply: string, r: BareReport, readOnly: boolean): BareReport {
  if (readOnly) return { ...r, reason: 'the reply asks to read files where a change was expected' };
  const parsed = parseEdits(reply);
  if (!parsed.ok) return { ...r, reason: parsed.reason };
  const applied = applyEdits(workspace, parsed.edits);
  if (!applied.ok) return { ...r, reason: applied.reason };
  return { ...r, outcome: 'edited', files_changed: applied.changed };
}

async function main(): Promise<void> {
  const job = JSON.parse(readFileSync(process.argv[2], 'utf8')) as BareJob;
  const report = await runBare(job, process.cwd());
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  main().catch((err) => {
    process.stderr.write(`bare agent: ${(err as Error).stack ?? String(err)}\n`);
    process.exitCode = 2;
  });
