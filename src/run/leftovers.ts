// What an earlier execution of a run may have left: processes of its agents and test runs (where
// no pid namespace took them down with it), and the workspaces and scratch directories of trials
// that were in flight when it died, with their overlay mounts. The directories are never reused
// (each execution has its own, see RunPaths). All are ended when the run is resumed, once this
// process holds the run.
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { killRunLeftovers } from '../agent/process-group.js';
import { unmountUnder } from '../workspace/layers.js';
import { LABEL_RUN } from '../workspace/sandbox/container.js';
import { ENGINES, engineProblem, findEngine, removeLabelled } from '../workspace/sandbox/engine.js';
import type { RunPaths } from './paths.js';

/** Containers of the run that outlived it (container sandboxes label theirs with the run). */
async function removeRunContainers(runId: string): Promise<number> {
  let n = 0;
  for (const name of ENGINES) {
    const engine = findEngine(name);
    if (engine && !(await engineProblem(engine)))
      n += await removeLabelled(engine, LABEL_RUN, runId);
  }
  return n;
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
      if (entry.replace(/\.(layers|kept)$/, '').endsWith(`-${paths.execution}`)) continue;
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
