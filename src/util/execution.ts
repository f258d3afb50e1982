// Who started a process. Every process NanoBench starts for a trial (the agent, the test runs,
// the install command) carries NANOBENCH_EXECUTION, naming the NanoBench process that started it:
// its role (a run, or a queue worker), pid, start time and host. A sweep of leftovers ends only
// processes whose starter is provably dead, as the run lease decides (src/run/lease.ts): its pid
// is gone from this host, or now belongs to a process that started at another time. A live
// worker's processes are never a resumed run's leftovers, whichever run they work for.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

export const EXECUTION_VAR = 'NANOBENCH_EXECUTION';

export type ExecutionRole = 'run' | 'worker';

export interface Execution {
  role: ExecutionRole;
  pid: number;
  /** Start time of the process in clock ticks since boot (/proc/PID/stat field 22); "" unknown. */
  start: string;
  host: string;
}

/** When `pid` started (clock ticks since boot), or "" where /proc cannot tell. */
export function startTime(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from its closing one.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}

let role: ExecutionRole = 'run';
let current: string | undefined;

/** This process is a queue worker (`nanobench worker`): say so on every process it starts. */
export function actAsWorker(): void {
  role = 'worker';
  current = undefined;
}

export function formatExecution(e: Execution): string {
  return `${e.role}:${e.pid}:${e.start}@${e.host}`;
}

/** This process's execution id, as its processes carry it. */
export function thisExecution(): string {
  current ??= formatExecution({
    role,
    pid: process.pid,
    start: startTime(process.pid),
    host: hostname(),
  });
  return current;
}

export function parseExecution(id: string | undefined): Execution | undefined {
  const m = /^(run|worker):(\d+):(\d*)@(.*)$/.exec(id ?? '');
  if (!m) return undefined;
  return { role: m[1] as ExecutionRole, pid: Number(m[2]), start: m[3], host: m[4] };
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the execution is provably gone: on this host, its pid is free or taken by a process
 * that started at another time. On another host nothing is provable from here: not dead.
 */
export function executionDead(e: Execution): boolean {
  if (e.host !== hostname()) return false;
  if (!pidAlive(e.pid)) return true;
  const now = startTime(e.pid);
  return e.start !== '' && now !== '' && now !== e.start;
}
