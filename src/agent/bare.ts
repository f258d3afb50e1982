// The bare agent (`--agent bare`): the model alone, without Nanocoder, as a yardstick for what the
// harness adds. It talks to the same provider and model through the same proxy (temperature 0),
// shows the model the task (hinted: the statement and the required files; navigation: the file
// list, then up to MAX_BARE_READS files it asks for with "READ: path" lines) and applies the
// whole-file replacements of its answer (src/agent/bare-format.ts). It runs as a Node process in
// the trial's sandbox (src/agent/bare-main.ts), like any agent.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { classifyError, DEFAULT_KIND, refusalOf } from '../provider/kinds.js';
import { runProcessGroup } from '../util/process-group.js';
import { agentEnv } from './agent-env.js';
import { BARE_PROMPT_VERSION, BARE_SYSTEM_PROMPT, MAX_BARE_READS } from './bare-format.js';
import type { BareJob, BareReport } from './bare-main.js';
import { sandboxPaths } from './nanocoder.js';
import { refusedRun } from './refused-run.js';
import { summarizeToolUse } from './tool-use.js';
import type { Agent, AgentContext, AgentResult, ExitKind } from './types.js';

// The compiled scripts the process runs (under vitest this module is src/agent/bare.ts: the
// process still runs the build in dist/, so `npm run build` comes first).
const HERE = path.dirname(fileURLToPath(import.meta.url));
const DIST_AGENT = path.join(HERE, '..', '..', 'dist', 'agent');
const AGENT_DIR = path.basename(path.dirname(HERE)) === 'dist' ? HERE : DIST_AGENT;
export const BARE_SCRIPT = path.join(AGENT_DIR, 'bare-main.js');
/** Everything bare-main.js imports: all the sandbox shows of NanoBench. */
const SCRIPT_FILES = [
  BARE_SCRIPT,
  path.join(AGENT_DIR, 'bare-format.js'),
  path.join(AGENT_DIR, '..', 'util', 'contained-path.js'),
];

export interface BareOptions {
  maxReads?: number;
  requestTimeoutMs?: number;
  /** The Node binary (default: the one NanoBench runs on; the script needs Node >= 20). */
  nodePath?: string;
}

/** The exit a provider failure stands for, from its HTTP status and message (0: no reply). */
export function providerExit(status: number, message: string): ExitKind {
  if (status === 0) return /timeout|abort/i.test(message) ? 'request_timeout' : 'unreachable';
  const cls = classifyError(status, message);
  if (cls === 'context_length') return 'context_exceeded';
  const refusal = refusalOf(status, cls);
  const kinds = {
    auth: 'auth_failed',
    billing: 'quota_exceeded',
    model_not_found: 'model_not_found',
    rate_limited: 'rate_limited',
    server_error: 'server_error',
  } as const;
  return refusal ? kinds[refusal] : 'error';
}

/** The AgentResult of a finished bare process, from its report. */
export function bareResult(
  report: BareReport,
  base: Omit<AgentResult, 'exitKind'>,
  requiredFiles: string[],
  workspace: string,
): AgentResult {
  const exitKind: ExitKind =
    report.outcome === 'edited'
      ? 'success'
      : report.outcome === 'unusable'
        ? 'unusable_edit'
        : providerExit(report.status ?? 0, report.message ?? '');
  const calls = report.files_read.map((p) => ({
    name: 'read_file',
    arguments: { path: p },
    result: '',
    error: null,
  }));
  const meta = {
    ...base.meta,
    bare: {
      prompt_version: report.prompt_version,
      outcome: report.outcome,
      ...(report.reason && { reason: report.reason }),
      ...(report.outcome === 'provider_error' && {
        provider_status: report.status,
        provider_message: report.message,
      }),
      requests: report.requests,
      files_refused: report.files_refused,
    },
  };
  return {
    ...base,
    exitKind,
    meta,
    report,
    reportedFilesChanged: report.files_changed,
    usage: {
      inputTokens: report.usage.input,
      outputTokens: report.usage.output,
      totalTokens: report.usage.input + report.usage.output,
    },
    toolUse: summarizeToolUse(calls, workspace, requiredFiles),
  };
}

export class BareAgent implements Agent {
  readonly name = 'bare';
  private readonly maxReads: number;
  private readonly requestTimeoutMs: number;
  private readonly nodePath: string;

  constructor(o: BareOptions = {}) {
    this.maxReads = o.maxReads ?? MAX_BARE_READS;
    this.requestTimeoutMs = o.requestTimeoutMs ?? 120_000;
    this.nodePath = o.nodePath ?? process.execPath;
  }

  async describe(): Promise<Record<string, unknown>> {
    return {
      bare_prompt_version: BARE_PROMPT_VERSION,
      bare_max_reads: this.maxReads,
      bare_node_version: process.versions.node,
    };
  }

  async run(ctx: AgentContext): Promise<AgentResult> {
    const meta: Record<string, unknown> = {
      barePromptVersion: BARE_PROMPT_VERSION,
      bareSystemPrompt: BARE_SYSTEM_PROMPT,
      maxReads: this.maxReads,
      nodePath: this.nodePath,
    };
    const refuse = (infraError: string) => refusedRun(infraError, meta);
    if (!ctx.endpoint) return refuse('bare needs ctx.endpoint (scripted model server or proxy)');
    const kind = ctx.endpoint.kind ?? DEFAULT_KIND;
    if (kind !== 'openai-compatible')
      return refuse(`bare speaks OpenAI-compatible chat completions only, not ${kind}`);
    const logs = path.join(ctx.scratchDir, 'logs');
    await mkdir(logs, { recursive: true });
    await mkdir(path.join(ctx.scratchDir, 'home'), { recursive: true });
    const required = 'required_files' in ctx.task ? ctx.task.required_files : [];
    const job: BareJob = {
      baseUrl: ctx.endpoint.baseUrl,
      apiKey: ctx.endpoint.apiKey,
      model: ctx.model,
      mode: ctx.mode,
      statement: 'problem_statement' in ctx.task ? ctx.task.problem_statement : ctx.prompt,
      requiredFiles: required,
      maxReads: this.maxReads,
      requestTimeoutMs: this.requestTimeoutMs,
      transcriptFile: path.join(logs, 'bare-transcript.json'),
    };
    const jobFile = path.join(ctx.scratchDir, 'bare-job.json');
    await writeFile(jobFile, JSON.stringify(job));
    const args = [BARE_SCRIPT, jobFile];
    const visible = [...sandboxPaths(this.nodePath, AGENT_DIR).slice(0, 2), ...SCRIPT_FILES];
    const launch = ctx.sandbox?.wrap(this.nodePath, args, visible) ?? {
      command: this.nodePath,
      args,
    };
    const p = await runProcessGroup({
      ...launch,
      tag: ctx.sandbox?.tag,
      cwd: ctx.workspace,
      env: agentEnv({ ...ctx.env, HOME: path.join(ctx.scratchDir, 'home'), NO_COLOR: '1' }),
      timeoutMs: ctx.timeoutSec * 1000,
      signal: ctx.signal,
      killGraceMs: 2000,
    });
    const base = {
      exitCode: p.exitCode,
      stdout: p.stdout,
      stderr: p.stderr,
      durationMs: p.durationMs,
      timedOut: p.timedOut,
      meta: { ...meta, ...(p.signal && { signal: p.signal }) },
    };
    if (p.spawnError)
      return { ...base, exitKind: 'error', infraError: `could not start bare: ${p.spawnError}` };
    if (p.timedOut) return { ...base, exitKind: 'timeout' };
    if (p.aborted) return { ...base, exitKind: 'signal' };
    const report = parseReport(p.stdout);
    if (!report)
      return {
        ...base,
        exitKind: 'error',
        infraError: `the bare agent's process ended (exit ${p.exitCode}) without its report: ${p.stderr.trim().split('\n').slice(-3).join(' | ')}`,
      };
    const result = bareResult(report, base, required, ctx.workspace);
    // A provider failure the exit kinds do not name is still the provider's, never the model's.
    if (report.outcome === 'provider_error' && result.exitKind === 'error')
      result.infraError = `the provider answered HTTP ${report.status}: ${report.message}`;
    return result;
  }
}

function parseReport(stdout: string): BareReport | undefined {
  const last = stdout.trim().split('\n').pop() ?? '';
  try {
    const r = JSON.parse(last) as BareReport;
    return r && typeof r.outcome === 'string' ? r : undefined;
  } catch {
    return undefined;
  }
}
