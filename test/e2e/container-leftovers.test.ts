// Issue 22 §5: the leftover sweep of a resumed run touches only what the run's own dead
// executions left, containers included. Real podman containers carrying NanoBench's labels (as a
// container sandbox sets them): the resume of run R removes the one a dead execution of R left,
// and keeps the ones of a live execution of R, of a worker (live or dead) working on R, and of
// another run.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { endLeftovers } from '../../src/run/leftovers.js';
import { RunPaths } from '../../src/trial/paths.js';
import { formatExecution, startTime } from '../../src/util/execution.js';
import { tempDir } from '../helpers/cli.js';
import { noPodman, testImage } from '../helpers/containers.js';

const podman = (...args: string[]) =>
  execFileSync('podman', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

const made: string[] = [];
afterAll(() => {
  if (made.length) podman('rm', '-f', '--ignore', ...made);
});

function container(runId: string, execution: string): string {
  const id = podman(
    ...['create', '--label', `nanobench.run=${runId}`],
    ...['--label', `nanobench.execution=${execution}`, testImage(), 'true'],
  );
  made.push(id);
  return id;
}

const exists = (id: string) =>
  podman('ps', '-a', '-q', '--no-trunc', '--filter', `id=${id}`) !== '';

describe.skipIf(noPodman)("a resume's container sweep", () => {
  it("removes the containers of the run's dead executions only", async () => {
    const runId = `run-${randomUUID().slice(0, 8)}`;
    const host = hostname();
    const self = { pid: process.pid, start: startTime(process.pid), host };
    // A pid whose start time is not this process's: an execution that is gone.
    const gone = { pid: process.pid, start: '1', host };
    const dead = container(runId, formatExecution({ role: 'run', ...gone }));
    const kept = [
      container(runId, formatExecution({ role: 'run', ...self })),
      container(runId, formatExecution({ role: 'worker', ...self })),
      container(runId, formatExecution({ role: 'worker', ...gone })),
      container(`${runId}-other`, formatExecution({ role: 'run', ...gone })),
    ];
    const said = await endLeftovers(new RunPaths(join(tempDir(), 'r.sqlite')), runId);
    expect(said).toBe(`removed 1 container(s) left by an earlier execution of run ${runId}`);
    expect(exists(dead)).toBe(false);
    for (const id of kept) expect(exists(id), id).toBe(true);
  });
});
