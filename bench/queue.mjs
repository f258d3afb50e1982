// Benchmark: throughput of distributed runs (BullMQ on Redis) against the local pool, with a
// trivial agent (`command:true`), so what is measured is the harness per trial (provision from a
// warm env cache, diff, verify, score, store) plus, for the queue, the scheduling overhead.
// For K = 1, 2, 4: a local run with --concurrency K, then a queue run with K worker processes
// (concurrency 1 each). Prints figures; asserts nothing about speed.
//   npm run bench:queue                       (builds first)
//   node bench/queue.mjs [runs-per-task] [redis-url]
// Without a URL (or NANOBENCH_TEST_REDIS_URL) a private redis-server is started on a free port.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist/cli/main.js');
const RUNS = Number(process.argv[2] ?? 4);
const SLOTS = [1, 2, 4];
const dir = mkdtempSync(join(tmpdir(), 'nb-bench-queue-'));
const cache = join(dir, 'work', 'cache'); // shared by local runs and workers: both start warm
const children = new Set();

function cli(args, { wait = true } = {}) {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let stderr = '';
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  child.stdout.resume();
  const exited = new Promise((res) =>
    child.once('exit', (code) => {
      children.delete(child);
      res(code);
    }),
  );
  if (!wait) return { child, exited, stderr: () => stderr };
  return exited.then((code) => {
    if (code !== 0) throw new Error(`nanobench ${args.join(' ')} exited ${code}\n${stderr}`);
  });
}

async function redis() {
  const given = process.argv[3] ?? process.env.NANOBENCH_TEST_REDIS_URL;
  if (given) return { url: `${given.replace(/\/\d*$/, '')}/7`, stop: () => {} };
  if (spawnSync('which', ['redis-server']).status !== 0) throw new Error('redis-server not found');
  const port = await new Promise((res) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => res(p));
    });
  });
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  children.add(child);
  for (let i = 0; i < 50; i++) {
    if (
      spawnSync('redis-cli', ['-p', String(port), 'ping'])
        .stdout?.toString()
        .includes('PONG')
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `redis://127.0.0.1:${port}/7`, stop: () => child.kill('SIGTERM') };
}

const base = ['run', 'examples', '--agent', 'command:true', '--mode', 'both'];
const trials = 5 * 2 * RUNS; // five example tasks, two modes
const seconds = (t0) => Number(process.hrtime.bigint() - t0) / 1e9;

async function timed(fn) {
  const t0 = process.hrtime.bigint();
  await fn();
  return seconds(t0);
}

let server;
try {
  server = await redis();
  // Warm the environment snapshots once, so no row pays for building them.
  await cli([...base, '--runs', '1', '--db', join(dir, 'warm.sqlite'), '--cache-dir', cache]);

  const rows = [];
  for (const k of SLOTS) {
    const local = await timed(() =>
      cli([
        ...base,
        '--runs',
        String(RUNS),
        '--concurrency',
        String(k),
        '--db',
        join(dir, `local${k}.sqlite`),
        '--cache-dir',
        cache,
      ]),
    );
    const workers = Array.from({ length: k }, () =>
      cli(['worker', '--queue', server.url, '--work-dir', join(dir, 'work')], { wait: false }),
    );
    const deadline = Date.now() + 30_000;
    while (!workers.every((w) => /ready/.test(w.stderr())) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    const queued = await timed(() =>
      cli([
        ...base,
        '--runs',
        String(RUNS),
        '--queue',
        server.url,
        '--db',
        join(dir, `queue${k}.sqlite`),
      ]),
    );
    for (const w of workers) w.child.kill('SIGTERM');
    await Promise.all(workers.map((w) => w.exited));
    rows.push({ k, local, queued });
  }

  const perMin = (s) => ((trials / s) * 60).toFixed(1);
  console.log(
    `queue benchmark: ${trials} trials per row (agent command:true, examples, ${RUNS} runs per task and mode), warm env cache`,
  );
  console.log(
    'slots | local pool: s, trials/min | queue (K workers): s, trials/min | queue overhead per trial',
  );
  for (const { k, local, queued } of rows) {
    // Extra busy time per trial a slot spends on the queue path (scheduling, Redis, shipping).
    const overheadMs = (((queued - local) * k) / trials) * 1000;
    console.log(
      `${String(k).padStart(5)} | ${local.toFixed(1).padStart(6)} s, ${perMin(local).padStart(6)} | ${queued.toFixed(1).padStart(6)} s, ${perMin(queued).padStart(6)} | ${overheadMs.toFixed(0).padStart(5)} ms`,
    );
  }
} finally {
  for (const c of children) c.kill('SIGKILL');
  server?.stop();
  rmSync(dir, { recursive: true, force: true });
}
