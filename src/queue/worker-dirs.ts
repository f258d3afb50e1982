// A worker's own directory under --work-dir (`worker-<pid>/`: its trials' workspaces and scratch
// directories), and what dead workers left there. A worker killed with SIGKILL leaves its
// directory, the overlays its trials' workspaces were mounted on, and, where no pid namespace
// took them down, its trials' processes and containers. The next worker on the same --work-dir
// (or `worker --cleanup`) ends them. Dead only: each directory names the execution that owns it
// (OWNER_FILE), and it is dead when its pid is gone from this host or taken by a later process,
// as the run lease decides (src/run/lease.ts); a directory of another host is left alone.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { onEveryEngine } from '../run/leftovers.js';
import { type Execution, executionDead, parseExecution, thisExecution } from '../util/execution.js';
import { killExecutionLeftovers } from '../util/process-group.js';
import { unmountUnder } from '../workspace/layers.js';
import { LABEL_EXECUTION } from '../workspace/sandbox/container.js';
import { removeLabelled } from '../workspace/sandbox/engine.js';

export const OWNER_FILE = 'owner.json';

interface Owner {
  execution: string;
}

/**
 * Who owns a worker directory: the execution its owner file names, or, for a directory without
 * one (made by an older NanoBench, or torn by a kill right after mkdir), the pid in its name on
 * this host.
 */
function ownerOf(dir: string, pid: number): { owner: Execution; id?: string } {
  try {
    const id = (JSON.parse(readFileSync(join(dir, OWNER_FILE), 'utf8')) as Owner).execution;
    const owner = parseExecution(id);
    if (owner) return { owner, id };
  } catch {
    // judged by its name
  }
  return { owner: { role: 'worker', pid, start: '', host: hostname() } };
}

export interface Swept {
  workers: number;
  processes: number;
  containers: number;
  mounts: number;
  /** Directories that could not be cleared this time (a mount still busy), with why. */
  left: string[];
}

/** Ends what dead workers left under `workDir`; live workers' directories are not touched. */
export async function sweepDeadWorkers(workDir: string): Promise<Swept> {
  const swept: Swept = { workers: 0, processes: 0, containers: 0, mounts: 0, left: [] };
  if (!existsSync(workDir)) return swept;
  for (const entry of readdirSync(workDir)) {
    const m = /^worker-(\d+)$/.exec(entry);
    if (!m) continue;
    const dir = join(workDir, entry);
    const { owner, id } = ownerOf(dir, Number(m[1]));
    // A directory with this process's pid that is not this execution's is an earlier
    // process's (before a reboot): dead, whatever the pid says.
    const earlierSelf = owner.pid === process.pid && id !== thisExecution();
    if (!earlierSelf && !executionDead(owner)) continue;
    if (id) {
      swept.processes += (await killExecutionLeftovers(id)).length;
      swept.containers += await onEveryEngine((e) => removeLabelled(e, LABEL_EXECUTION, id));
    }
    try {
      // Removing through a mounted overlay would only fill its upper layer: unmount first.
      swept.mounts += unmountUnder(dir).length;
      rmSync(dir, { recursive: true, force: true });
      swept.workers++;
    } catch (e) {
      swept.left.push(`${dir} (${(e as Error).message})`);
    }
  }
  return swept;
}

/** One line for the log, or undefined when there was nothing to end. */
export function describeSwept(s: Swept, workDir: string): string | undefined {
  if (s.workers === 0 && s.left.length === 0) return undefined;
  const parts = [
    ...(s.processes ? [`ended ${s.processes} process(es)`] : []),
    ...(s.containers ? [`removed ${s.containers} container(s)`] : []),
    ...(s.mounts ? [`unmounted ${s.mounts} workspace overlay(s)`] : []),
    ...(s.workers ? [`removed ${s.workers} worker director${s.workers === 1 ? 'y' : 'ies'}`] : []),
  ];
  const done = parts.length ? `${parts.join(' and ')} left by dead workers in ${workDir}` : '';
  const left = s.left.length ? `could not clear ${s.left.join('; ')}: try again later` : '';
  return [done, left].filter(Boolean).join('; ');
}

/**
 * This worker's directory, made fresh after sweeping what dead workers left (a dead worker with
 * this pid, from before a reboot, included) and marked with this execution.
 */
export async function claimWorkerDir(workDir: string): Promise<{ dir: string; swept: Swept }> {
  const swept = await sweepDeadWorkers(workDir);
  const dir = join(workDir, `worker-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, OWNER_FILE), `${JSON.stringify({ execution: thisExecution() })}\n`);
  return { dir, swept };
}
