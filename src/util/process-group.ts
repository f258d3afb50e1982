// Run an agent process in its own process group with a wall-clock limit. Everything it started
// is killed at the end so shells, test runners or servers cannot outlive the trial and disturb
// verification. A group kill is not enough for Nanocoder: its bash tool spawns `sh -c` detached
// (a new session), so descendants are also found by an environment tag they all inherit.

import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { closeSync, createWriteStream, openSync, readSync, type WriteStream } from 'node:fs';
import { readdir, readFile, readlink, stat } from 'node:fs/promises';
import { EXECUTION_VAR, executionDead, parseExecution, thisExecution } from './execution.js';
import { closePipesAfter, killGroup } from './process.js';

export interface GroupRunOptions {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Time between SIGTERM and SIGKILL. */
  killGraceMs?: number;
  /** In-memory cap per stream; the files (if given) always get everything. */
  maxOutputBytes?: number;
  /**
   * The process's stdout is this file itself, not a pipe copied into it. A Node program writes
   * to a pipe asynchronously and loses what is still queued when it calls process.exit (Nanocoder
   * 1.30 does, right after writing its --json report); writes to a file are synchronous.
   */
  stdoutFile?: string;
  stderrFile?: string;
  /** TAG_VAR value (default: a fresh one); the trial passes its own to sweep stragglers later. */
  tag?: string;
  /** Written to the process's stdin, which is then closed (default: stdin is /dev/null). */
  stdin?: string;
}

export const TAG_VAR = 'NANOBENCH_PROCESS_TAG';
/** Every process a sandbox session starts also carries its run's id (see killRunLeftovers). */
export const RUN_ID_VAR = 'NANOBENCH_RUN_ID';
export { EXECUTION_VAR };

export interface GroupRunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
  /** Set when the process could not be started at all. */
  spawnError?: string;
}

const TAIL_BYTES = 64 * 1024;

/** Keeps the first `cap` bytes and the last 64 KiB: the end of stderr is what classifies a run. */
class Capture {
  private head: Buffer[] = [];
  private headLen = 0;
  private tail = Buffer.alloc(0);
  private dropped = 0;
  constructor(
    private readonly cap: number,
    private readonly file?: WriteStream,
  ) {}
  add(chunk: Buffer): void {
    this.file?.write(chunk);
    const room = this.cap - this.headLen;
    if (room > 0) {
      const part = chunk.subarray(0, room);
      this.head.push(part);
      this.headLen += part.length;
      chunk = chunk.subarray(part.length);
    }
    if (chunk.length === 0) return;
    const joined = Buffer.concat([this.tail, chunk]);
    const cut = Math.max(0, joined.length - TAIL_BYTES);
    this.dropped += cut;
    this.tail = joined.subarray(cut);
  }
  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    if (this.tail.length === 0) return head;
    const gap = this.dropped ? `\n[... ${this.dropped} bytes omitted ...]\n` : '';
    return head + gap + this.tail.toString('utf8');
  }
  async close(): Promise<void> {
    const f = this.file;
    if (f) await new Promise<void>((resolve) => f.end(resolve));
  }
}

/** Pids of live processes (other than us) whose environment holds TAG_VAR=tag. Linux only. */
export function findTagged(tag: string): Promise<number[]> {
  return findByEnv(TAG_VAR, tag);
}

/** Pids of live processes (other than us) whose initial environment holds `name=value`. */
async function findByEnv(name: string, value: string): Promise<number[]> {
  return (await scanEnv(name)).filter((p) => p.env.get(name) === value).map((p) => p.pid);
}

/** Live processes (other than us) whose initial environment sets `name`, with that environment. */
async function scanEnv(name: string): Promise<{ pid: number; env: Map<string, string> }[]> {
  const needle = Buffer.from(`\0${name}=`);
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  const found: { pid: number; env: Map<string, string> }[] = [];
  await Promise.all(
    entries.map(async (e) => {
      const pid = Number(e);
      if (!Number.isInteger(pid) || pid === process.pid) return;
      try {
        const raw = Buffer.concat([Buffer.from([0]), await readFile(`/proc/${pid}/environ`)]);
        if (!raw.includes(needle)) return;
        const env = new Map<string, string>();
        for (const kv of raw.toString('utf8').split('\0')) {
          const eq = kv.indexOf('=');
          if (eq > 0) env.set(kv.slice(0, eq), kv.slice(eq + 1));
        }
        found.push({ pid, env });
      } catch {
        // gone, or not ours to read
      }
    }),
  );
  return found;
}

async function killTagged(tag: string, sig: NodeJS.Signals): Promise<void> {
  await killByEnv(TAG_VAR, tag, sig);
}

async function killByEnv(name: string, value: string, sig: NodeJS.Signals): Promise<number[]> {
  return killWhere(name, (env) => env.get(name) === value, sig);
}

/** Signals every live process whose environment sets `name` and passes `match`. */
async function killWhere(
  name: string,
  match: (env: Map<string, string>) => boolean,
  sig: NodeJS.Signals,
): Promise<number[]> {
  const killed = new Set<number>();
  // A few passes: a process may fork while we scan.
  for (let pass = 0; pass < 3; pass++) {
    const pids = (await scanEnv(name)).filter((p) => match(p.env)).map((p) => p.pid);
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, sig);
        killed.add(pid);
      } catch {}
    }
  }
  return [...killed];
}

/**
 * SIGKILLs the live processes that dead executions of run `runId` left: every process a sandbox
 * session (or an install command) starts carries RUN_ID_VAR and EXECUTION_VAR. For a run resumed
 * after NanoBench itself was killed (kill -9, the OOM killer, a CI cancel). Under bwrap and in a
 * pid namespace nothing is left by then (the namespace dies with its launcher); this sweep is
 * what remains where no namespace could be made (see workspace/sandbox/contain.ts), and it
 * misses a process that wiped its environment. Processes of a live execution (the run's own
 * previous holder still stopping, a queue worker working on the run) and of workers (whose
 * leftovers the next worker ends, src/queue/worker-dirs.ts) are never touched; so is a process
 * that names no execution (it cannot be told apart from a live one).
 */
export function killRunLeftovers(runId: string): Promise<number[]> {
  if (!runId) return Promise.resolve([]);
  return killWhere(
    RUN_ID_VAR,
    (env) => {
      if (env.get(RUN_ID_VAR) !== runId) return false;
      const e = parseExecution(env.get(EXECUTION_VAR));
      return e?.role === 'run' && executionDead(e);
    },
    'SIGKILL',
  );
}

/** SIGKILLs every live process that execution `id` started (a dead worker's, say). */
export function killExecutionLeftovers(id: string): Promise<number[]> {
  return killByEnv(EXECUTION_VAR, id, 'SIGKILL');
}

/**
 * After a trial: kill what survived its agent. Tagged processes, plus (for agents that dropped
 * the tag, e.g. `env -i setsid ...`) our own user's processes whose working directory lies in
 * one of `dirs`. Where the session had a pid namespace (bwrap, none-as-nobody, and plain none
 * wherever one can be made) nothing survives it; elsewhere this is best effort: a process that
 * left both the tag and the workspace can escape.
 */
export async function killStragglers(tag: string, dirs: string[]): Promise<number[]> {
  const uid = process.getuid?.();
  dirs = dirs.filter((d) => d.startsWith('/') && d.length > 1);
  const inDirs = async (pid: number): Promise<boolean> => {
    try {
      if (uid !== undefined && (await stat(`/proc/${pid}`)).uid !== uid) return false;
      const cwd = await readlink(`/proc/${pid}/cwd`);
      return dirs.some((d) => cwd === d || cwd.startsWith(`${d}/`));
    } catch {
      return false;
    }
  };
  const killed = new Set<number>();
  for (let pass = 0; pass < 3; pass++) {
    const tagged = await findTagged(tag);
    const pids = (await readdir('/proc').catch(() => [] as string[]))
      .map(Number)
      .filter((p) => Number.isInteger(p) && p > 1 && p !== process.pid);
    const byDir = (await Promise.all(pids.map(async (p) => ((await inDirs(p)) ? p : 0)))).filter(
      Boolean,
    );
    const found = [...new Set([...tagged, ...byDir])];
    if (found.length === 0) break;
    for (const pid of found) {
      try {
        process.kill(pid, 'SIGKILL');
        killed.add(pid);
      } catch {}
    }
  }
  return [...killed];
}

/** What the process wrote to its stdout file, into the capture (head and tail as for a pipe). */
function readInto(capture: Capture, fd: number): void {
  const chunk = Buffer.alloc(1024 * 1024);
  for (let at = 0; ; ) {
    const n = readSync(fd, chunk, 0, chunk.length, at);
    if (n === 0) return;
    capture.add(Buffer.from(chunk.subarray(0, n)));
    at += n;
  }
}

/**
 * After the leader's exit, until our pipes close: sweep the tag again every 250 ms (one sweep can
 * miss a process caught mid-exec, whose environment reads empty for that instant), and after
 * `graceMs` stop waiting for a descendant that left both the group and the tag (closePipesAfter).
 * Returns the function that stops both.
 */
function holdersOfPipes(tag: string, child: ChildProcess, graceMs: number): () => void {
  const sweep = setInterval(() => void killTagged(tag, 'SIGKILL'), 250);
  const stopWaiting = closePipesAfter(child, graceMs);
  return () => {
    clearInterval(sweep);
    stopWaiting();
  };
}

export async function runProcessGroup(o: GroupRunOptions): Promise<GroupRunResult> {
  const started = Date.now();
  const cap = o.maxOutputBytes ?? 20 * 1024 * 1024;
  const out = new Capture(cap);
  const err = new Capture(cap, o.stderrFile ? createWriteStream(o.stderrFile) : undefined);
  const stdoutFd = o.stdoutFile === undefined ? undefined : openSync(o.stdoutFile, 'w+');
  const finish = async (r: Omit<GroupRunResult, 'stdout' | 'stderr' | 'durationMs'>) => {
    if (stdoutFd !== undefined) {
      readInto(out, stdoutFd);
      closeSync(stdoutFd);
    }
    await Promise.all([out.close(), err.close()]);
    return { ...r, stdout: out.text(), stderr: err.text(), durationMs: Date.now() - started };
  };
  if (o.signal?.aborted)
    return finish({ exitCode: null, signal: null, timedOut: false, aborted: true });

  const tag = o.tag ?? randomUUID();
  // stdin is /dev/null, or a given text and then end of file: the agent must never wait for a
  // human.
  const child = spawn(o.command, o.args, {
    cwd: o.cwd,
    env: { ...o.env, [TAG_VAR]: tag, [EXECUTION_VAR]: thisExecution() },
    stdio: [o.stdin === undefined ? 'ignore' : 'pipe', stdoutFd ?? 'pipe', 'pipe'],
    detached: true,
  });
  if (child.stdin) {
    // An agent that exits without reading it all closes the pipe: EPIPE is not our error.
    child.stdin.on('error', () => {});
    child.stdin.end(o.stdin);
  }
  child.stdout?.on('data', (c: Buffer) => out.add(c));
  child.stderr?.on('data', (c: Buffer) => err.add(c));

  let timedOut = false;
  let aborted = false;
  let exited = false;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (exited) return;
    // One SIGTERM to the group only: a second one (e.g. via the tag) makes Nanocoder die from the
    // signal instead of shutting down. Escaped descendants get SIGKILL when the leader is gone.
    killGroup(child.pid, 'SIGTERM');
    killTimer = setTimeout(() => {
      killGroup(child.pid, 'SIGKILL');
      void killTagged(tag, 'SIGKILL');
    }, o.killGraceMs ?? 5000);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, o.timeoutMs);
  const onAbort = () => {
    aborted = true;
    stop();
  };
  o.signal?.addEventListener('abort', onAbort, { once: true });
  let afterExit: (() => void) | undefined;

  const result = await new Promise<{
    code: number | null;
    sig: NodeJS.Signals | null;
    error?: string;
  }>((resolve) => {
    child.once('error', (e) => resolve({ code: null, sig: null, error: e.message }));
    child.once('exit', () => {
      exited = true;
      // The leader is gone; anything it left behind goes too. Without this, a background
      // child holding our pipes open would also stall 'close' forever.
      killGroup(child.pid, 'SIGKILL');
      void killTagged(tag, 'SIGKILL');
      afterExit = holdersOfPipes(tag, child, o.killGraceMs ?? 5000);
    });
    child.once('close', (code, sig) => resolve({ code, sig }));
  });
  afterExit?.();
  clearTimeout(timer);
  if (killTimer) clearTimeout(killTimer);
  await killTagged(tag, 'SIGKILL'); // also the ones started after the leader's exit began
  o.signal?.removeEventListener('abort', onAbort);
  return finish({
    exitCode: result.code,
    signal: result.sig,
    timedOut,
    aborted,
    ...(result.error !== undefined && { spawnError: result.error }),
  });
}
