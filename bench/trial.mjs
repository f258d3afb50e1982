// Benchmark: what a trial costs beyond its test suite, per provisioning mode. The task is
// shopfront-001 with a large dependency tree (bench/big-deps.mjs: 2,000 packages, 10,000 files,
// about 150 MB in web/node_modules, like jest's) whose JavaScript suite loads it; the agent is
// nop. The floor is the suites alone, run the way a hand-written loop would: in one prepared
// checkout (test_patch applied), no sandbox, no NanoBench. Rounds alternate the floor and one
// trial per mode, so the machine's load falls on all of them alike. Then the same trials two at
// a time, for the throughput of --concurrency 2. Prints figures; asserts nothing about speed.
//   npm run bench:trial                  (builds first)
//   node bench/trial.mjs [rounds=5] [--packages N] [--load N] [--modes overlay,copy] [--sandbox none]
//                        [--no-concurrency]
// A real task instead (a reference task: its patches come from the repository):
//   node bench/trial.mjs 3 --task datasets/nanobench-v1/tasks/luxon-1685.json --mirror DIR
//                        [--cache-dir DIR] [--modes overlay,copy]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { nopAgent } from '../dist/agent/controls.js';
import { loadDataset, loadTaskFile } from '../dist/task/load.js';
import { inlinePatches } from '../dist/task/patches.js';
import { RunPaths } from '../dist/trial/paths.js';
import { runTrial } from '../dist/trial/run-trial.js';
import { TIMED_PHASES } from '../dist/trial/stages.js';
import { run } from '../dist/util/process.js';
import { cleanTestEnv, suiteRunFrom } from '../dist/verify/verifier.js';
import { mountTable, unmountUnder } from '../dist/workspace/layers.js';
import { ensureSnapshot } from '../dist/workspace/provision.js';
import { resolveTask } from '../dist/workspace/resolve-tasks.js';
import { selectSandbox } from '../dist/workspace/sandbox/select.js';
import { ensureSourceClone, resolveSource } from '../dist/workspace/source.js';

const ROOT = resolve(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const ROUNDS = Number(argv.find((a) => /^\d+$/.test(a)) ?? 5);
const PACKAGES = Number(opt('--packages', 2000));
// Packages each test process loads (three modules each); default: all of them.
const LOAD = Number(opt('--load', PACKAGES));
const isRoot = process.getuid?.() === 0;
const which = (p) => {
  try {
    return execFileSync('sh', ['-c', `PATH="$PATH:/usr/sbin:/sbin" command -v ${p}`], {
      encoding: 'utf8',
    }).trim();
  } catch {
    return '';
  }
};

const dir = mkdtempSync('/var/tmp/nb-bench-trial-');
async function measured(fn) {
  const t = process.hrtime.bigint();
  const value = await fn();
  return { value, ms: Number(process.hrtime.bigint() - t) / 1e6 };
}
// reflink needs a filesystem that shares blocks: as root, an XFS image on a loop device.
const roots = {};
for (const mode of opt('--modes', 'overlay,fuse-overlayfs,reflink,copy').split(',')) {
  const root = join(dir, mode);
  mkdirSync(root);
  if (mode === 'reflink') {
    if (!isRoot || !which('mkfs.xfs')) {
      console.log('reflink: skipped (needs root and mkfs.xfs for an XFS image)');
      continue;
    }
    const image = join(dir, 'xfs.img');
    execFileSync('truncate', ['-s', '2G', image]);
    execFileSync(which('mkfs.xfs'), ['-q', image]);
    execFileSync('mount', ['-o', 'loop', image, root]);
  }
  if (mode === 'overlay' && !isRoot) {
    console.log('overlay: skipped (kernel overlay mounts need root)');
    continue;
  }
  if (mode === 'fuse-overlayfs' && !which('fuse-overlayfs')) {
    console.log('fuse-overlayfs: skipped (not installed)');
    continue;
  }
  roots[mode] = root;
}

// The task: shopfront-001 with its JavaScript suite loading a large node_modules, or --task.
const TASK_FILE = opt('--task');
const CACHE_DIR = opt('--cache-dir');
const base = JSON.parse(readFileSync(join(ROOT, 'examples/tasks/shopfront-001.json'), 'utf8'));
const synthetic = {
  ...base,
  task_id: 'shopfront-001-deps',
  install_command: `${base.install_command} && node ${join(ROOT, 'bench/big-deps.mjs')} web/node_modules ${PACKAGES} 70 ${LOAD}`,
  test_suites: base.test_suites.map((s) =>
    s.name === 'js'
      ? { ...s, command: `NODE_OPTIONS=--require=./web/node_modules/all-deps ${s.command}` }
      : s,
  ),
};
synthetic.test_command = synthetic.test_suites[0].command;
const dataset = join(dir, 'dataset');
mkdirSync(join(dataset, 'tasks'), { recursive: true });
writeFileSync(join(dataset, 'tasks', `${synthetic.task_id}.json`), JSON.stringify(synthetic));
const mirrorDir = TASK_FILE ? opt('--mirror') : join(ROOT, 'examples/mirror');
const cacheOf = (mode) => CACHE_DIR ?? join(roots[mode], 'cache');
const resolved = TASK_FILE
  ? await resolveTask(loadTaskFile(TASK_FILE), {
      cacheDir: cacheOf(Object.keys(roots)[0]),
      mirrorDir,
    })
  : (() => {
      const [loaded] = loadDataset(dataset);
      return { ...loaded, task: inlinePatches(loaded.task) };
    })();
const task = resolved.task;

const sandbox = await selectSandbox(opt('--sandbox', 'auto'), {
  protectedPaths: [ROOT, dir],
  warn: () => {},
});
let n = 0;
async function trial(mode) {
  const key = `${task.task_id}|nop|${mode}|${n++}`;
  const spec = {
    key,
    task: resolved,
    agent: 'nop',
    provider: 'none',
    model: 'none',
    mode: 'hinted',
    attempt: 1,
  };
  const paths = new RunPaths(join(roots[mode], 'results', 'r.sqlite'), cacheOf(mode));
  const m = await measured(() =>
    runTrial(spec, {
      runId: 'bench',
      paths,
      agent: nopAgent,
      mirrorDir,
      keepWorkspaces: false,
      sandbox,
      provision: mode,
    }),
  );
  const rec = m.value;
  if (rec.status !== 'scored' || rec.score !== 0)
    throw new Error(`${mode}: nop trial ${rec.status} ${rec.label} ${rec.error}`);
  if (rec.details.provision?.mode !== mode)
    throw new Error(`${mode}: provisioned with ${rec.details.provision?.mode}`);
  const suites = rec.details.suites.reduce((a, x) => a + x.ms, 0);
  for (const x of rec.details.suites) expectedTests[x.name] = x.tests;
  return { ms: m.ms, phases: { ...rec.details.phase_ms, suites } };
}

// The floor: the same suites, by hand, in one prepared checkout.
const modes = Object.keys(roots);
/** Tests each suite reported in the trials: the floor must report as many. */
const expectedTests = {};
console.log(
  `preparing: ${modes.join(', ')} (${TASK_FILE ? `${task.task_id}: its install` : `the install makes ${PACKAGES} packages`} per cache)`,
);
for (const mode of modes) {
  // Builds each mode's snapshot (and for none-as-nobody its lower layer owned by nobody).
  const started = Date.now();
  await trial(mode);
  console.log(`  ${mode}: first trial ${Date.now() - started} ms (not measured)`);
}
// The floor's checkout sits where a trial's workspace does (same depth, same name lengths): test
// runners resolve every module through the path, and its length alone moves a module-heavy suite
// by several percent, which is no cost of NanoBench's.
const checkout = join(dir, 'floor', 'results', 'workspaces', 'bench', '00000000-00000000');
mkdirSync(join(checkout, '..'), { recursive: true });
const clone = await ensureSourceClone(
  cacheOf(modes[0]),
  task.repo,
  resolveSource(resolved, mirrorDir),
  { commits: [task.base_commit] },
);
const snapshotWs = join((await ensureSnapshot(cacheOf(modes[0]), task, clone)).dir, 'ws');
execFileSync('cp', ['-a', snapshotWs, checkout]);
execFileSync('git', ['apply', '-'], { cwd: checkout, input: task.test_patch });
const home = join(dir, 'home');
const floorSuites = [];
const floor = () => measured(floorRun);
async function floorRun() {
  let suites = 0;
  for (const s of task.test_suites) {
    rmSync(home, { recursive: true, force: true });
    mkdirSync(home);
    const resultFile = s.result_file && join(checkout, s.result_file);
    if (resultFile) rmSync(resultFile, { force: true });
    // A fresh HOME and TMPDIR, as each trial's sandbox has: a cache a runner keeps there (jest's
    // transform cache in TMPDIR) is never shared between trials, so the floor starts cold too.
    const tmp = join(home, 'tmp');
    mkdirSync(tmp);
    const r = await run('/bin/sh', ['-c', s.command], {
      cwd: checkout,
      env: { ...cleanTestEnv(home), TMPDIR: tmp },
    });
    if (r.timedOut) throw new Error(`floor: ${s.name} timed out`);
    // The same suite as the trials', or the floor measures something else.
    const report =
      resultFile && existsSync(resultFile) ? readFileSync(resultFile, 'utf8') : undefined;
    const tests = suiteRunFrom(s, r, report, checkout, 600).tests.length;
    if (tests !== expectedTests[s.name])
      throw new Error(
        `floor: ${s.name} reported ${tests} tests, the trials ${expectedTests[s.name]}`,
      );
    suites += r.durationMs;
  }
  floorSuites.push(suites);
}
await floor(); // warm

const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const loadBefore = load();
const times = { floor: [] };
const phases = {};
for (const m of modes) {
  times[m] = [];
  phases[m] = [];
}
for (let r = 0; r < ROUNDS; r++) {
  times.floor.push((await floor()).ms);
  for (const m of modes) {
    const t = await trial(m);
    times[m].push(t.ms);
    phases[m].push(t.phases);
  }
  process.stderr.write(`round ${r + 1}/${ROUNDS}\n`);
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const floorMs = median(times.floor);
console.log(
  `\n${ROUNDS} rounds, sandbox ${sandbox.kind}, ${TASK_FILE ? task.task_id : `${PACKAGES} packages in web/node_modules, ${LOAD} loaded by each test process`}; load average ${loadBefore} before, ${load()} after`,
);
console.log(`floor (the suites alone in a prepared checkout): median ${floorMs.toFixed(0)} ms`);
console.log('\nmode            median ms  ratio   median phase ms');
// suites: the part of verify that is the suites' own run (inside the sandbox).
const ORDER = [...TIMED_PHASES];
ORDER.splice(ORDER.indexOf('verify') + 1, 0, 'suites');
for (const m of modes) {
  const med = median(times[m]);
  const ph = ORDER.map((p) => `${p} ${median(phases[m].map((x) => x?.[p] ?? 0)).toFixed(0)}`);
  console.log(
    `${m.padEnd(15)} ${med.toFixed(0).padStart(9)} ${(med / floorMs).toFixed(2).padStart(6)}x   ${ph.join(', ')}`,
  );
}

// Throughput: the same trials one at a time and two at a time.
if (!argv.includes('--no-concurrency') && modes.length) {
  const mode = modes[0];
  const N = Math.max(4, ROUNDS - (ROUNDS % 2));
  const lane = async (k) => {
    for (let i = 0; i < k; i++) await trial(mode);
  };
  const t1 = process.hrtime.bigint();
  await lane(N);
  const one = Number(process.hrtime.bigint() - t1) / 1e6;
  const t2 = process.hrtime.bigint();
  await Promise.all([lane(N / 2), lane(N / 2)]);
  const two = Number(process.hrtime.bigint() - t2) / 1e6;
  console.log(
    `\nthroughput, ${N} ${mode} trials: one at a time ${((N * 60000) / one).toFixed(1)}/min, two at a time ${((N * 60000) / two).toFixed(1)}/min (${(one / two).toFixed(2)}x); load average ${load()}`,
  );
}

unmountUnder(dir);
if (mountTable().some((m) => m.point.startsWith(dir))) console.log(`left mounted under ${dir}`);
rmSync(dir, { recursive: true, force: true });
