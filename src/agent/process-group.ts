// Run an agent process in its own process group with a wall-clock limit. The whole group is
// killed (not just the leader) so shells, test runners or servers the agent started cannot
// outlive the trial and disturb verification.
import { spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';

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
  stdoutFile?: string;
  stderrFile?: string;
}

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

function killGroup(pid: number | undefined, sig: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(-pid, sig);
  } catch {
    // ESRCH: the group is already gone.
  }
}

export async function runProcessGroup(o: GroupRunOptions): Promise<GroupRunResult> {
  const started = Date.now();
  const cap = o.maxOutputBytes ?? 20 * 1024 * 1024;
  const out = new Capture(cap, o.stdoutFile ? createWriteStream(o.stdoutFile) : undefined);
  const err = new Capture(cap, o.stderrFile ? createWriteStream(o.stderrFile) : undefined);
  const finish = async (r: Omit<GroupRunResult, 'stdout' | 'stderr' | 'durationMs'>) => {
    await Promise.all([out.close(), err.close()]);
    return { ...r, stdout: out.text(), stderr: err.text(), durationMs: Date.now() - started };
  };
  if (o.signal?.aborted)
    return finish({ exitCode: null, signal: null, timedOut: false, aborted: true });

  // stdin is /dev/null: the agent must never wait for a human.
  const child = spawn(o.command, o.args, {
    cwd: o.cwd,
    env: o.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout.on('data', (c: Buffer) => out.add(c));
  child.stderr.on('data', (c: Buffer) => err.add(c));

  let timedOut = false;
  let aborted = false;
  let exited = false;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = () => {
    if (exited) return;
    killGroup(child.pid, 'SIGTERM');
    killTimer = setTimeout(() => killGroup(child.pid, 'SIGKILL'), o.killGraceMs ?? 5000);
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

  const result = await new Promise<{ code: number | null; sig: NodeJS.Signals | null; error?: string }>(
    (resolve) => {
      child.once('error', (e) => resolve({ code: null, sig: null, error: e.message }));
      child.once('exit', () => {
        exited = true;
        // The leader is gone; anything it left behind in its group goes too. Without this,
        // a background child holding our pipes open would also stall 'close' forever.
        killGroup(child.pid, 'SIGKILL');
      });
      child.once('close', (code, sig) => resolve({ code, sig }));
    },
  );
  clearTimeout(timer);
  if (killTimer) clearTimeout(killTimer);
  o.signal?.removeEventListener('abort', onAbort);
  return finish({
    exitCode: result.code,
    signal: result.sig,
    timedOut,
    aborted,
    ...(result.error !== undefined && { spawnError: result.error }),
  });
}
