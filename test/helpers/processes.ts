// Real processes for the containment tests: who is still alive, and running NanoBench (or a
// stand-in for it) as an unprivileged user when the tests run as root.
import { type ChildProcess, spawn } from 'node:child_process';
import { chownSync, readdirSync, readFileSync } from 'node:fs';
import { varTempDir } from './cli.js';

export const isRoot = process.getuid?.() === 0;
export const NOBODY = { uid: 65534, gid: 65534 };

/** Argv prefix that runs a command as nobody (nothing when we are not root already). */
export function asUnprivileged(): string[] {
  return isRoot
    ? ['setpriv', `--reuid=${NOBODY.uid}`, `--regid=${NOBODY.gid}`, '--clear-groups', '--']
    : [];
}

/** A temp directory (outside /tmp, which sandboxes make private) the unprivileged user owns. */
export function unprivilegedDir(prefix: string): string {
  const dir = varTempDir(prefix);
  if (isRoot) chownSync(dir, NOBODY.uid, NOBODY.gid);
  return dir;
}

/** Pids of live processes (any user) whose command line holds `marker`. */
export function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p) && Number(p) !== process.pid)
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Alive and not a zombie (PID 1 in a container may never reap orphans). */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls until `f` returns true or `ms` pass; returns its last answer. */
export async function waitFor(f: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (f()) return true;
    await sleep(50);
  }
  return f();
}

/** Starts `argv` (its own process group, output kept) and returns the child. */
export function start(
  argv: string[],
  o: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): ChildProcess & { output: () => string } {
  const child = spawn(argv[0], argv.slice(1), {
    cwd: o.cwd,
    env: o.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout?.on('data', (b: Buffer) => {
    out += b.toString();
  });
  child.stderr?.on('data', (b: Buffer) => {
    out += b.toString();
  });
  return Object.assign(child, { output: () => out });
}

/** SIGKILL to `pid` alone (what the OOM killer does), then wait for it to be gone. */
export async function killHard(child: ChildProcess): Promise<void> {
  const gone = new Promise((r) => child.once('exit', r));
  process.kill(child.pid!, 'SIGKILL');
  await gone;
}

/** Kill whatever a failed test left (by marker), so one failure does not leak into the next. */
export function cleanup(marker: string): void {
  for (const pid of processesWith(marker))
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
}
