// Issue 22 §5, the queue's part: a coordinator and workers on a real redis-server, through the
// CLI, with an agent that stays in flight (slow-pass.sh) while something goes wrong around it.
// - `run --resume` of a queue run on a machine where workers run ended their in-flight agents
//   ("ended 12 process(es) left by an earlier execution"), which then scored zero_signal.
// - Redis restarted empty while a worker ran: the worker started the same trial again, in the
//   same workspace, and the first teardown removed it under the second.
// - `run --queue` and `worker` against a server that accepts and never answers hung silently.
// - A worker killed with SIGKILL left its overlay mount and worker-<pid>/ directory forever.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountTable } from '../../src/workspace/layers.js';
import { AGENTS, CLI, nanobench, ROOT, tempDir } from '../helpers/cli.js';
import { storedTrialRows } from '../helpers/db.js';
import { isRoot } from '../helpers/processes.js';
import { startPrivateRedis, startTestRedis, type TestRedis } from '../queue/redis.js';

const agent = (seconds: number) => `command:${join(AGENTS, 'slow-pass.sh')} ${seconds}`;
/** textkit-001, hinted: slow-pass.sh resolves it (pass 1.00) unless it is ended early. */
const RUN = (seconds: number, runs: number) => [
  ...['run', 'examples', '--task', 'textkit-001', '--mode', 'hinted'],
  ...['--agent', agent(seconds), '--runs', String(runs)],
];

interface Proc {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const procs: Proc[] = [];
function start(args: string[]): Proc {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const p = { child, stdout: () => out, stderr: () => err, exited };
  procs.push(p);
  return p;
}

async function until(what: string, cond: () => boolean, ms: number, logs?: () => string) {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${logs?.() ?? ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
  });
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

const worker = (url: string, workDir: string, concurrency = 1) =>
  start([
    ...['worker', '--queue', url, '--work-dir', workDir],
    ...['--lock-ms', '5000', '--concurrency', String(concurrency)],
  ]);
const ready = (w: Proc) =>
  until('the worker to be ready', () => /ready/.test(w.stderr()), 60_000, w.stderr);

// Worker log lines: start "<key>" (run <id>) / done "<key>": <label>
const starts = (log: string) => [
  ...log.matchAll(/^nanobench worker: start (".*") \(run (\S+)\)/gm),
];
const doneLines = (log: string) => [...log.matchAll(/^nanobench worker: done (".*"): (.*)$/gm)];

/** Live processes whose environment says they work for run `runId` (its agents, its tests). */
function processesOfRun(runId: string): number[] {
  const needle = `\0NANOBENCH_RUN_ID=${runId}\0`;
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return `\0${readFileSync(`/proc/${p}/environ`, 'latin1')}`.includes(needle);
      } catch {
        return false;
      }
    })
    .map(Number);
}

type Row = { trial_key: string; status: string; label: string | null; score: number | null };
const rows = (db: string) => storedTrialRows<Row>(db, ['trial_key', 'status', 'label', 'score']);
const outcomes = (db: string) => rows(db).map((r) => `${r.status} ${r.label} ${r.score}`);

afterAll(() => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
});

describe('a queue run and its workers on one machine', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis(5);
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it("run --resume leaves a live worker's in-flight agents alone", async () => {
    const dir = tempDir();
    const w = worker(redis.url, join(dir, 'w'), 2);
    await ready(w);
    const db = join(dir, 'dist.sqlite');
    const coord = start([...RUN(25, 2), '--queue', redis.url, '--db', db]);
    await until('both trials to start', () => starts(w.stderr()).length === 2, 90_000, w.stderr);
    const runId = starts(w.stderr())[0][2];
    await until('the agents to run', () => processesOfRun(runId).length > 0, 90_000, w.stderr);
    coord.child.kill('SIGKILL');
    await coord.exited;
    const inFlight = processesOfRun(runId);
    expect(inFlight.length).toBeGreaterThan(0);

    // The queue URL is in the run's config; the resume waits for the workers' results.
    const r = nanobench(['run', '--resume', '--db', db, '--json'], { timeoutMs: 180_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/ended \d+ process/);
    expect(outcomes(db)).toEqual(['scored pass 1', 'scored pass 1']);
    // Each trial ran once, to its end, in the worker (whose log this process reads again now
    // that the synchronous resume is over).
    await until('the worker log', () => doneLines(w.stderr()).length === 2, 10_000, w.stderr);
    expect(starts(w.stderr())).toHaveLength(2);
    expect(doneLines(w.stderr()).map((m) => m[2])).toEqual(['pass', 'pass']);
    w.child.kill('SIGTERM');
    expect(await within(w.exited, 60_000, 'the worker to stop')).toBe(0);
  });
});

describe('Redis restarted empty while a worker runs a trial', () => {
  it('the worker does not start that trial a second time; the run completes', async () => {
    const redis = await startPrivateRedis();
    try {
      const dir = tempDir();
      const w = worker(redis.url, join(dir, 'w'), 2);
      await ready(w);
      const db = join(dir, 'dist.sqlite');
      const coord = start([...RUN(20, 1), '--queue', redis.url, '--db', db]);
      await until('the trial to start', () => starts(w.stderr()).length === 1, 90_000, w.stderr);
      const runId = starts(w.stderr())[0][2];
      await until('its agent to run', () => processesOfRun(runId).length > 0, 90_000, w.stderr);
      // Redis loses every job; the coordinator enqueues the trial again (same job id), and the
      // worker, which has a free slot, is handed it while the first one still runs.
      await redis.restart();
      const code = await within(coord.exited, 180_000, 'the coordinator to finish');
      expect(code, coord.stderr() + w.stderr()).toBe(0);
      expect(outcomes(db)).toEqual(['scored pass 1']);
      expect(starts(w.stderr()), w.stderr()).toHaveLength(1);
      expect(w.stderr()).toMatch(/is already running here; this job waits for it/);
      w.child.kill('SIGTERM');
      expect(await within(w.exited, 60_000, 'the worker to stop')).toBe(0);
    } finally {
      await redis.stop();
    }
  });
});

describe('a queue that accepts connections and never answers', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer(() => {}); // accepts, says nothing
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `redis://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => {
    server.close();
  });

  /** The CLI, bounded: killed after 20 s (a hang fails the test, never the suite). */
  const cli = async (args: string[]) => {
    const p = start(args);
    const t0 = Date.now();
    const timer = setTimeout(() => p.child.kill('SIGKILL'), 20_000);
    const code = await p.exited;
    clearTimeout(timer);
    return { code, ms: Date.now() - t0, stderr: p.stderr(), stdout: p.stdout() };
  };

  for (const [name, args] of [
    ['worker', (d: string) => ['worker', '--queue', url, '--work-dir', join(d, 'w')]],
    [
      'run --queue',
      (d: string) => [
        'run',
        'examples',
        '--agent',
        'oracle',
        '--queue',
        url,
        '--db',
        join(d, 'r.sqlite'),
      ],
    ],
  ] as const)
    it(`${name}: one line within 10 s`, async () => {
      const r = await cli(args(tempDir()));
      expect(r.code, r.stderr).toBe(2);
      expect(r.ms).toBeLessThan(10_000);
      expect(r.stdout).toBe('');
      expect(r.stderr.trimEnd().split('\n')).toEqual([
        `nanobench: --queue ${url}: no answer from Redis within 4 s (the connection was accepted but nothing came back); check that the URL names a Redis server that is up`,
      ]);
    });
});

describe('what a worker killed with SIGKILL left', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis(6);
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('is removed by worker --cleanup and by the next worker on the work dir; live ones keep theirs', async () => {
    const dir = tempDir();
    const workDir = join(dir, 'w');
    const own = (w: Proc) => join(workDir, `worker-${w.child.pid}`);
    const mountsUnder = (d: string) => mountTable().filter((m) => m.point.startsWith(`${d}/`));
    // As root, workspaces are overlays (auto): a killed worker leaves one mounted.
    const inFlight = (w: Proc) => () =>
      starts(w.stderr()).length > 0 && (!isRoot || mountsUnder(own(w)).length > 0);
    const a = worker(redis.url, workDir);
    const b = worker(redis.url, workDir);
    await Promise.all([ready(a), ready(b)]);
    const db = join(dir, 'dist.sqlite');
    const coord = start([...RUN(30, 2), '--queue', redis.url, '--db', db]);
    await until(
      'A and B to be mid-trial',
      () => inFlight(a)() && inFlight(b)(),
      90_000,
      () => [a.stderr(), b.stderr()].join('\n'),
    );

    a.child.kill('SIGKILL');
    await a.exited;
    expect(existsSync(own(a))).toBe(true);
    expect(mountsUnder(own(a)).length).toBe(isRoot ? 1 : 0);
    const cleaned = nanobench(['worker', '--cleanup', '--work-dir', workDir], {
      timeoutMs: 60_000,
    });
    expect(cleaned.code, cleaned.stderr).toBe(0);
    expect(cleaned.stdout.trim()).toBe(
      `${isRoot ? 'unmounted 1 workspace overlay(s) and ' : ''}removed 1 worker directory left by dead workers in ${workDir}`,
    );
    expect(existsSync(own(a))).toBe(false);
    expect(mountsUnder(own(a))).toEqual([]);
    // B is alive: its directory and its trial's overlay stay.
    expect(existsSync(own(b))).toBe(true);
    expect(mountsUnder(own(b)).length).toBe(isRoot ? 1 : 0);

    b.child.kill('SIGKILL');
    await b.exited;
    const c = worker(redis.url, workDir, 2);
    await ready(c);
    expect(c.stderr()).toContain(
      `${isRoot ? 'unmounted 1 workspace overlay(s) and ' : ''}removed 1 worker directory left by dead workers in ${workDir}`,
    );
    expect(existsSync(own(b))).toBe(false);
    expect(mountsUnder(own(b))).toEqual([]);
    // C takes both stalled trials over once the dead workers' locks expire.
    const code = await within(coord.exited, 180_000, 'the coordinator to finish');
    expect(code, coord.stderr() + c.stderr()).toBe(0);
    expect(outcomes(db)).toEqual(['scored pass 1', 'scored pass 1']);
    c.child.kill('SIGTERM');
    expect(await within(c.exited, 60_000, 'the worker to stop')).toBe(0);
    expect(readdirSync(workDir).filter((e) => e.startsWith('worker-'))).toEqual([]);
  });
});
