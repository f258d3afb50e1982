// Issue 22 §5: "A kill -9'd worker's overlay mount and worker-<pid>/ directory stay forever."
// The next worker on the work dir (or `worker --cleanup`) ends what dead workers left: their
// directories and the processes they started; a live worker's, one on another host, and
// anything that is no worker directory are left alone. (Mounts, through the CLI:
// test/e2e/queue-faults.test.ts.)
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  claimWorkerDir,
  describeSwept,
  OWNER_FILE,
  sweepDeadWorkers,
} from '../../src/queue/worker-dirs.js';
import { formatExecution, startTime, thisExecution } from '../../src/util/execution.js';
import { tempDir } from '../helpers/cli.js';
import { waitFor } from '../helpers/processes.js';

const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
});

function sleeper(env: NodeJS.ProcessEnv = {}): ChildProcess {
  const c = spawn('sleep', ['300'], { env: { ...process.env, ...env }, stdio: 'ignore' });
  children.push(c);
  return c;
}

/** The execution id of a worker process that has exited (its pid is free now). */
async function deadWorker(): Promise<string> {
  const c = spawn('sleep', ['0.2'], { stdio: 'ignore' });
  await waitFor(() => startTime(c.pid!) !== '', 2_000);
  const id = formatExecution({
    role: 'worker',
    pid: c.pid!,
    start: startTime(c.pid!),
    host: hostname(),
  });
  await new Promise((r) => c.once('exit', r));
  return id;
}

function workerDir(workDir: string, pid: number, execution?: string): string {
  const dir = join(workDir, `worker-${pid}`, 'workspaces', 'run1', 'ws');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'fix.js'), 'left by a trial');
  if (execution)
    writeFileSync(join(workDir, `worker-${pid}`, OWNER_FILE), JSON.stringify({ execution }));
  return join(workDir, `worker-${pid}`);
}

const alive = (c: ChildProcess) => c.exitCode === null && c.signalCode === null;

describe('what dead workers left in a work dir', () => {
  it('is removed, with the processes they started; live and foreign workers keep theirs', async () => {
    const workDir = tempDir('nb-workdir-');
    const dead = await deadWorker();
    const deadPid = Number(/:(\d+):/.exec(dead)![1]);
    const deadDir = workerDir(workDir, deadPid, dead);
    const orphan = sleeper({ NANOBENCH_EXECUTION: dead });
    // A live worker: a running process stands in for it.
    const liveProc = sleeper();
    const live = formatExecution({
      role: 'worker',
      pid: liveProc.pid!,
      start: startTime(liveProc.pid!),
      host: hostname(),
    });
    const liveDir = workerDir(workDir, liveProc.pid!, live);
    const liveChild = sleeper({ NANOBENCH_EXECUTION: live });
    // Its pid is free here, but it ran on another machine sharing the directory.
    const foreign = workerDir(workDir, deadPid + 1, dead.replace(/@.*$/, '@elsewhere'));
    // Made before owner files: judged by the pid in the name (another exited process's: a pid
    // next to deadPid may already belong to one of the sleepers above).
    const legacyPid = Number(/:(\d+):/.exec(await deadWorker())![1]);
    const legacyDead = workerDir(workDir, legacyPid);
    const legacyLive = workerDir(workDir, sleeper().pid!);
    mkdirSync(join(workDir, 'cache'));

    const swept = await sweepDeadWorkers(workDir);
    expect(swept).toMatchObject({ workers: 2, mounts: 0, left: [] });
    expect(swept.processes).toBeGreaterThanOrEqual(1);
    expect(existsSync(deadDir)).toBe(false);
    expect(existsSync(legacyDead)).toBe(false);
    expect(await waitFor(() => !alive(orphan), 5_000)).toBe(true);
    expect(alive(liveChild)).toBe(true);
    for (const d of [liveDir, foreign, legacyLive, join(workDir, 'cache')])
      expect(existsSync(d)).toBe(true);
    expect(describeSwept(swept, workDir)).toMatch(
      new RegExp(
        `^ended \\d+ process\\(es\\) and removed 2 worker directories left by dead workers in ${workDir}$`,
      ),
    );
  });

  it('a new worker sweeps first, then claims its own directory under its execution', async () => {
    const workDir = tempDir('nb-workdir-');
    const dead = await deadWorker();
    const deadDir = workerDir(workDir, Number(/:(\d+):/.exec(dead)![1]), dead);
    // An earlier process with this very pid (before a reboot): not this execution, so dead.
    const earlier = workerDir(
      workDir,
      process.pid,
      formatExecution({
        role: 'worker',
        pid: process.pid,
        start: '1',
        host: hostname(),
      }),
    );
    const { dir, swept } = await claimWorkerDir(workDir);
    expect(swept.workers).toBe(2);
    expect(existsSync(deadDir)).toBe(false);
    expect(dir).toBe(earlier);
    expect(existsSync(join(dir, 'workspaces'))).toBe(false); // fresh
    expect(JSON.parse(readFileSync(join(dir, OWNER_FILE), 'utf8'))).toEqual({
      execution: thisExecution(),
    });
    // Its own directory is a live worker's to the next sweep.
    expect((await sweepDeadWorkers(workDir)).workers).toBe(0);
    expect(existsSync(dir)).toBe(true);
  });
});
