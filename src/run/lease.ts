// One process runs a run. Two processes resuming the same run used the same workspaces, killed
// each other's agents, stored harness-caused errors as final and dropped results; so a run is
// held through a lease in the store, renewed by a heartbeat. A second process is refused with
// the holder's name; a dead holder (its pid gone on this host, or silent for a minute) is taken
// over, and --take-over takes it regardless (the user's call, e.g. a holder on another host).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { RunLease, Store } from '../store/store.js';
import { UserError } from '../util/errors.js';

export const HEARTBEAT_MS = 5_000;
/** A holder silent for this long is dead or hung: its lease can be taken. */
export const STALE_MS = 60_000;

export interface LeaseHandle {
  holder: string;
  /** Stop the heartbeat and give the run back. */
  release(): void;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether `current` may be taken over: it is provably dead, silent too long, or we were told to. */
export function takeable(current: RunLease, now: number, takeOver: boolean): boolean {
  if (takeOver) return true;
  if (now - Date.parse(current.heartbeat_at) > STALE_MS) return true;
  return current.host === hostname() && !alive(current.pid);
}

export function acquireRunLease(
  store: Store,
  runId: string,
  o: { takeOver?: boolean; onLost?: (by: RunLease | undefined) => void } = {},
): LeaseHandle {
  const now = new Date().toISOString();
  const lease: RunLease = {
    run_id: runId,
    holder: `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`,
    host: hostname(),
    pid: process.pid,
    acquired_at: now,
    heartbeat_at: now,
  };
  const r = store.takeLease(lease, (current) => takeable(current, Date.now(), Boolean(o.takeOver)));
  if (!r.taken) {
    const age = Math.round((Date.now() - Date.parse(r.current.heartbeat_at)) / 1000);
    throw new UserError(
      'RUN_HELD',
      `run ${runId} is being run by process ${r.current.pid} on ${r.current.host} (last heartbeat ${age}s ago); wait for it to finish, or, if that process is gone, resume with --take-over`,
    );
  }
  const timer = setInterval(() => {
    let ours: boolean;
    try {
      ours = store.heartbeat(runId, lease.holder, new Date().toISOString());
    } catch {
      return; // the store cannot be written now (a full disk): the next beat tries again
    }
    if (!ours) {
      clearInterval(timer);
      o.onLost?.(store.getLease(runId));
    }
  }, HEARTBEAT_MS);
  timer.unref();
  return {
    holder: lease.holder,
    release() {
      clearInterval(timer);
      try {
        store.releaseLease(runId, lease.holder);
      } catch {
        // Not written (a full disk): the lease names this process, gone once it exits, and a
        // resume on this host takes it over then.
      }
    },
  };
}
