// What an earlier execution of a run may have left: processes of its agents, test runs and
// install commands (where no pid namespace took them down with it), its containers, and the
// workspaces and scratch directories of trials that were in flight when it died, with their
// overlay mounts. The directories are never reused (each execution has its own, see RunPaths).
// All are ended when the run is resumed, once this process holds the run. Processes and
// containers carry the execution that started them, and only a dead execution of the run
// itself is swept: a queue worker working on the run, on this machine, keeps its own.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { RunPaths } from '../trial/paths.js';
import { executionDead, parseExecution } from '../util/execution.js';
import { killRunLeftovers } from '../util/process-group.js';
import { unmountUnder } from '../workspace/layers.js';
import { LABEL_EXECUTION, LABEL_RUN } from '../workspace/sandbox/container.js';
import {
  ENGINES,
  type Engine,
  engineProblem,
  findEngine,
  removeLabelledIf,
} from '../workspace/sandbox/engine.js';

/** Runs `f` on every container engine that works here; the sum of what it returns. */
export async function onEveryEngine(f: (e: Engine) => Promise<number>): Promise<number> {
  let n = 0;
  for (const name of ENGINES) {
    const engine = findEngine(name);
    if (engine && !(await engineProblem(engine))) n += await f(engine);
  }
  return n;
}

/** Containers that dead executions of the run left (container sandboxes label theirs). */
function removeRunContainers(runId: string): Promise<number> {
  return onEveryEngine((engine) =>
    removeLabelledIf(engine, LABEL_RUN, runId, (labels) => {
      const e = parseExecution(labels[LABEL_EXECUTION]);
      return e?.role === 'run' && executionDead(e);
    }),
  );
}

export async function endLeftovers(paths: RunPaths, runId: string): Promise<string | undefined> {
  const containers = await removeRunContainers(runId);
  const killed = await killRunLeftovers(runId);
  let dirs = 0;
  let mounts = 0;
  for (const kind of ['workspaces', 'scratch']) {
    const dir = join(paths.root, kind, runId);
    if (!existsSync(dir)) continue;
    for (const entry of readdirSync(dir)) {
      // A workspace's overlay layers (<ws>.layers) belong to its execution too.
      if (paths.isOwn(entry)) continue;
      // An overlay the killed execution left mounted: removing through it would only fill its
      // upper layer, and its mount point cannot be removed at all.
      mounts += unmountUnder(join(dir, entry)).length;
      rmSync(join(dir, entry), { recursive: true, force: true });
      if (!/\.(layers|kept)$/.test(entry)) dirs++;
    }
  }
  const said = [
    ...(containers ? [`removed ${containers} container(s)`] : []),
    ...(killed.length ? [`ended ${killed.length} process(es)`] : []),
    ...(mounts ? [`unmounted ${mounts} workspace overlay(s)`] : []),
    ...(dirs ? [`removed ${dirs} workspace/scratch director${dirs === 1 ? 'y' : 'ies'}`] : []),
  ];
  return said.length
    ? `${said.join(' and ')} left by an earlier execution of run ${runId}`
    : undefined;
}
