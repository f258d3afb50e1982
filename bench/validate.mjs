// Benchmark: how long validating a dataset takes, and where the time goes. Runs the built CLI
// (`nanobench validate DATASET --json`) as a curator would, at each --concurrency given, and
// prints the wall time, the load, and per gate the time summed over the tasks (with its share),
// then the slowest tasks. With a warm cache (clones and environments already built by an earlier
// run or by `task mine`), that is the validation time of a release. Asserts nothing about speed.
//   npm run bench:validate -- DATASET [--concurrency 1,2] [--mirror DIR] [--cache-dir DIR]
//                                     [--task ID]... [--sandbox podman]
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli', 'main.js');
const args = process.argv.slice(2);
const dataset = args.find((a, i) => !a.startsWith('--') && !args[i - 1]?.startsWith('--'));
if (!dataset) {
  console.error(
    'usage: node bench/validate.mjs DATASET [--concurrency 1,2] [--mirror DIR] [--cache-dir DIR]',
  );
  process.exit(2);
}
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const levels = (opt('--concurrency') ?? '1').split(',').map(Number);
const passOn = ['--mirror', '--cache-dir', '--sandbox', '--build-arg'].flatMap((n) =>
  opt(n) ? [n, opt(n)] : [],
);
const only = args.flatMap((a, i) => (a === '--task' ? [args[i + 1]] : []));
const targets = only.length ? only.map((id) => join(dataset, 'tasks', `${id}.json`)) : [dataset];
const s = (ms) => `${(ms / 1000).toFixed(1)}s`;

console.log(`validate ${targets.join(' ')} on ${cpus().length} cores`);
for (const n of levels) {
  const load = loadavg()[0];
  const started = Date.now();
  const r = spawnSync(
    process.execPath,
    [CLI, 'validate', ...targets, '--json', '--concurrency', String(n), ...passOn],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  const wall = Date.now() - started;
  if (r.status !== 0 && r.status !== 1) {
    console.error(r.stderr);
    process.exit(1);
  }
  const out = JSON.parse(r.stdout);
  const byGate = new Map();
  for (const t of out.tasks)
    for (const g of t.gates) byGate.set(g.gate, (byGate.get(g.gate) ?? 0) + g.ms);
  const total = [...byGate.values()].reduce((a, b) => a + b, 0);
  console.log(
    `\n--concurrency ${n}: ${out.total} task(s), ${out.admissible} admissible, wall ${s(wall)} (${s(wall / out.total)} a task; load ${load.toFixed(1)} at the start)`,
  );
  for (const [gate, ms] of [...byGate].sort((a, b) => b[1] - a[1]))
    console.log(
      `  ${gate.padEnd(13)} ${s(ms).padStart(8)}  ${((ms / total) * 100).toFixed(0).padStart(3)}%`,
    );
  const slowest = out.tasks
    .map((t) => [t.task_id, t.gates.reduce((a, g) => a + g.ms, 0)])
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5);
  console.log(`  slowest: ${slowest.map(([id, ms]) => `${id} ${s(ms)}`).join(', ')}`);
}
