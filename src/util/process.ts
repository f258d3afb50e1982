// Spawning child processes in their own process group, so a timeout or the end of a trial
// kills everything they started (test runners fork; agents run shells).
import { type ChildProcess, spawn } from 'node:child_process';

export interface RunOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  /** Bytes kept per stream; the rest is dropped with a marker (memory stays bounded). */
  maxOutputBytes?: number;
  signal?: AbortSignal;
  input?: string;
}

export interface RunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  durationMs: number;
}

const DEFAULT_MAX = 20 * 1024 * 1024;
/** How long after the leader's exit its pipes may stay held open by something that escaped. */
const PIPE_GRACE_MS = 5000;

/**
 * After the leader's exit: `graceMs` later, stop waiting for whatever still holds its pipes (a
 * process that left the group): our ends are closed, so 'close' comes. Returns the cancel.
 */
export function closePipesAfter(child: ChildProcess, graceMs: number): () => void {
  const giveUp = setTimeout(() => {
    child.stdout?.destroy();
    child.stderr?.destroy();
  }, graceMs);
  return () => clearTimeout(giveUp);
}

export function killGroup(pid: number | undefined, sig: NodeJS.Signals = 'SIGKILL'): void {
  if (!pid) return;
  try {
    process.kill(-pid, sig);
  } catch {
    // the group is already gone
  }
}

/** Run `file args` (no shell). */
export function run(file: string, args: string[], opts: RunOptions): Promise<RunResult> {
  const started = Date.now();
  const max = opts.maxOutputBytes ?? DEFAULT_MAX;
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: opts.cwd,
      env: opts.env ?? process.env,
      detached: true,
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outLen = 0;
    let errLen = 0;
    child.stdout!.on('data', (b: Buffer) => {
      if (outLen < max) out.push(b);
      outLen += b.length;
    });
    child.stderr!.on('data', (b: Buffer) => {
      if (errLen < max) err.push(b);
      errLen += b.length;
    });
    if (opts.input !== undefined) child.stdin?.end(opts.input);
    let timedOut = false;
    const stop = () => {
      killGroup(child.pid, 'SIGTERM');
      setTimeout(() => killGroup(child.pid, 'SIGKILL'), 2000).unref();
    };
    const timer = opts.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          stop();
        }, opts.timeoutMs)
      : undefined;
    const onAbort = () => stop();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('error', (e) => {
      if (timer) clearTimeout(timer);
      reject(e);
    });
    // Whatever the leader left behind (background jobs) dies with it; one that left the group
    // and still holds our pipes is not waited for past a grace, or 'close' would never come.
    let stopWaiting: (() => void) | undefined;
    child.on('exit', () => {
      killGroup(child.pid, 'SIGKILL');
      stopWaiting = closePipesAfter(child, PIPE_GRACE_MS);
    });
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      stopWaiting?.();
      opts.signal?.removeEventListener('abort', onAbort);
      const trunc = (len: number) =>
        len > max ? `\n[nanobench: output truncated, ${len} bytes in all]\n` : '';
      resolve({
        exitCode: code,
        signal,
        stdout: Buffer.concat(out).toString('utf8') + trunc(outLen),
        stderr: Buffer.concat(err).toString('utf8') + trunc(errLen),
        timedOut,
        durationMs: Date.now() - started,
      });
    });
  });
}

/** Run a shell command line with /bin/sh -c. */
export function runShell(command: string, opts: RunOptions): Promise<RunResult> {
  return run('/bin/sh', ['-c', command], opts);
}

/** What `execText` rejects with: the command's exit status and stderr, as execFileSync's error. */
export class ExecError extends Error {
  constructor(
    message: string,
    readonly status: number | null,
    readonly stderr: string,
  ) {
    super(message);
  }
}

/**
 * execFileSync's contract (stdout on exit 0, an error with status and stderr otherwise) without
 * blocking the event loop: a trial's bookkeeping (git, mount) must not stall the proxy that
 * every other agent's requests go through.
 */
export async function execText(
  file: string,
  args: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string } = {},
): Promise<string> {
  const r = await run(file, args, {
    cwd: opts.cwd ?? process.cwd(),
    env: opts.env,
    input: opts.input,
    maxOutputBytes: 1 << 28,
  });
  if (r.exitCode === 0) return r.stdout;
  const why = r.stderr.trim() || (r.signal ? `killed by ${r.signal}` : `exit ${r.exitCode}`);
  throw new ExecError(`${file} ${args.join(' ')}: ${why}`, r.exitCode, r.stderr);
}
