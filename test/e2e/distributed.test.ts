// Issue #8: distributed trials. A coordinator (`run --queue`) and worker processes on a real
// redis-server, on the example tasks. A worker killed mid-trial has its trial run by another; a
// coordinator killed mid-run is resumed and collects what the workers finished meanwhile. Either
// way every trial is stored exactly once, with the same outcomes as a local run.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENTS, CLI, ROOT, runJson, tempDir } from '../helpers/cli.js';
import { storedTrialRows } from '../helpers/db.js';
import { startTestRedis, type TestRedis } from '../queue/redis.js';

// Slow enough to kill mid-trial; mixed outcomes: a wrong fix in a required file on one task
// (incorrect_fix, 0 hinted and 0.1 navigation) and elsewhere zero_signal (hinted) and
// insufficient_context_read (navigation). (partial.sh gave the same outcome in both modes.)
// One leading script path: a sandboxed command agent sees that file and nothing else of ours.
const AGENT = `command:${join(AGENTS, 'incorrect.sh')} && sleep 1.5`;
const RUN = ['run', 'examples', '--agent', AGENT, '--mode', 'both', '--runs', '1'];
const TRIALS = 10; // five tasks, two modes, one run

interface Proc {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

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
  return { child, stdout: () => out, stderr: () => err, exited };
}

async function until(
  what: string,
  cond: () => boolean,
  ms = 90_000,
  logs?: () => string,
): Promise<void> {
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

// Worker log lines: start "<key>" (run <id>) / done "<key>": <label>
const keysIn = (log: string, re: RegExp) =>
  [...log.matchAll(re)].map((m) => JSON.parse(m[1]) as string);
const startedKeys = (log: string) => keysIn(log, /^nanobench worker: start (".*") \(run /gm);
const doneKeys = (log: string) => keysIn(log, /^nanobench worker: done (".*"): /gm);

type Row = { trial_key: string; status: string; score: number | null; label: string | null };
const storedRows = (db: string) =>
  storedTrialRows<Row>(db, ['trial_key', 'status', 'score', 'label']);

const outcome = (t: { status: string; score: number | null; label: string | null }) =>
  `${t.status} ${t.label} ${t.score}`;

describe('distributed run on BullMQ', () => {
  let redis: TestRedis;
  const local = new Map<string, string>();
  const workers: Proc[] = [];
  const worker = (dir: string) => {
    const w = start(['worker', '--queue', redis.url, '--work-dir', dir, '--lock-ms', '5000']);
    workers.push(w);
    return w;
  };

  beforeAll(async () => {
    redis = await startTestRedis(3);
    const db = join(tempDir(), 'local.sqlite');
    runJson([...RUN, '--concurrency', '2', '--db', db]);
    for (const t of storedRows(db)) local.set(t.trial_key, outcome(t));
    expect(local.size).toBe(TRIALS);
    expect(new Set(local.values()).size).toBeGreaterThan(2); // the comparison means something
  });

  afterAll(async () => {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    await redis?.stop();
  });

  it('a worker killed mid-trial: another runs it; every trial stored once, as locally', async () => {
    const dir = tempDir();
    const a = worker(join(dir, 'w'));
    const b = worker(join(dir, 'w'));
    await until(
      'workers ready',
      () => /ready/.test(a.stderr()) && /ready/.test(b.stderr()),
      30_000,
      () => a.stderr() + b.stderr(),
    );
    const db = join(dir, 'dist.sqlite');
    const coord = start([...RUN, '--queue', redis.url, '--db', db, '--json']);

    await until('worker A to start a trial', () => startedKeys(a.stderr()).length > 0);
    const victim = startedKeys(a.stderr())[0];
    a.child.kill('SIGKILL');
    await a.exited;
    expect(doneKeys(a.stderr())).not.toContain(victim); // it really died mid-trial

    const code = await within(coord.exited, 120_000, 'the coordinator to finish');
    expect(code, coord.stderr()).toBe(0);
    const out = JSON.parse(coord.stdout());
    expect(out.trials).toHaveLength(TRIALS);
    // Worker B picked the dead worker's trial up (stalled-job handling) and finished it.
    expect(doneKeys(b.stderr())).toContain(victim);

    const rows = storedRows(db);
    expect(rows).toHaveLength(TRIALS);
    expect(new Set(rows.map((r) => r.trial_key)).size).toBe(TRIALS);
    for (const r of rows) expect(outcome(r), r.trial_key).toBe(local.get(r.trial_key));

    b.child.kill('SIGTERM');
    expect(await b.exited).toBe(0);
  });

  it('a coordinator killed mid-run: --resume collects the results the workers left in Redis', async () => {
    const dir = tempDir();
    const c = worker(join(dir, 'w'));
    const d = worker(join(dir, 'w'));
    await until(
      'workers ready',
      () => /ready/.test(c.stderr()) && /ready/.test(d.stderr()),
      30_000,
      () => c.stderr() + d.stderr(),
    );
    const db = join(dir, 'dist.sqlite');
    const coord = start([...RUN, '--queue', redis.url, '--db', db]);
    await until('two stored trials', () => storedRows(db).length >= 2);
    coord.child.kill('SIGKILL');
    await coord.exited;
    const before = storedRows(db).length;
    expect(before).toBeLessThan(TRIALS);

    // The workers go on without a coordinator; their results wait in Redis.
    const done = () => [...doneKeys(c.stderr()), ...doneKeys(d.stderr())];
    await until(
      'the workers to finish every trial',
      () => done().length >= TRIALS,
      90_000,
      () => c.stderr() + d.stderr(),
    );

    const out = runJson(['run', '--resume', '--db', db]); // the queue URL is in the run's config
    expect(out.trials).toHaveLength(TRIALS);
    const rows = storedRows(db);
    expect(rows).toHaveLength(TRIALS);
    expect(new Set(rows.map((r) => r.trial_key)).size).toBe(TRIALS);
    for (const r of rows) expect(outcome(r), r.trial_key).toBe(local.get(r.trial_key));
    // Nothing ran twice: the resumed coordinator re-enqueued with the same job ids.
    expect(done().sort()).toEqual([...local.keys()].sort());

    for (const w of [c, d]) w.child.kill('SIGTERM');
    expect(await Promise.all([c.exited, d.exited])).toEqual([0, 0]);
  });
});
