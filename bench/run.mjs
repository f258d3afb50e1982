// Benchmark: a run at the speed of its provider (issue 27). Nanocoder trials on the example tasks
// against the scripted server (a stand-in, not a model) whose every reply takes DELAY ms, as a
// provider thinking would. Prints
//   wall_s=<W> ideal_s=<I> ratio=<W/I> agent_slots=<A> request_slots=<R> verify_slots=<V> ...
// where the ideal is the larger of (summed model wait / the provider's request slots: requests it
// serves at once) and (summed suite CPU / cores), both measured in the same run: the model wait is
// what the proxy timed per request from the moment it went upstream (a request's wait for a slot
// of its provider is not counted: that is the run's doing, not the model's); CPU is sampled per process (suites: everything under the CLI that is not Nanocoder,
// git included). agent_cpu_s is Nanocoder's own CPU (Node startup, tool work), which the ideal
// leaves out; nanobench_cpu_s is NanoBench's own process (the proxy and the scripted server too);
// cpu_floor_s is all of that CPU over the cores, a floor no schedule can beat. machine_cpu_s is the
// whole machine's busy CPU during the run (/proc/stat: every process, the kernel's work too), and
// floor_s the larger of the ideal's model term and machine_cpu_s over the cores: on a machine
// whose cores the agents themselves fill, no schedule beats it (ratio_to_floor = wall / floor).
//   npm run bench:run                    (builds first; the defaults)
//   node bench/run.mjs [--runs 8] [--delay 1500] [--old]
// --old: today's behaviour before issue 27, one pool of two trials (NANOBENCH_ONE_POOL=1,
// --concurrency 2), for the README's table. NANOBENCH_COMPILE_CACHE=off node bench/run.mjs: the
// trials without Nanocoder's compile cache (src/agent/compile-cache.ts), for the same table.
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { loadCassette } from '../dist/provider/cassette.js';
import { CASSETTE_FILE } from '../dist/provider/endpoints.js';
import { agentsFor, HOSTED_REQUEST_SLOTS } from '../dist/provider/providers-config.js';
import { autoConcurrency } from '../dist/run/config.js';
import { Store } from '../dist/store/store.js';

const ROOT = resolve(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const RUNS = Number(opt('--runs', 8));
const DELAY = Number(opt('--delay', 1500));
const OLD = argv.includes('--old');
const dir = mkdtempSync('/var/tmp/nb-bench-run-');

// The competent script of the examples, every step taking DELAY ms.
const competent = JSON.parse(
  readFileSync(join(ROOT, 'examples/scripted-models/competent.json'), 'utf8'),
);
for (const b of Object.values(competent.tasks))
  for (const step of b.steps ?? []) step.delay_ms = DELAY;
const scripts = join(dir, 'scripts');
mkdirSync(scripts);
writeFileSync(join(scripts, 'competent.json'), JSON.stringify(competent));

// CPU per process, sampled from /proc every 50 ms over the CLI's process tree (the agents run in
// sandboxes that do not report their children's CPU to the CLI): the CLI itself is NanoBench,
// a Nanocoder process and everything under it is the agent, the rest (suites, git) the suites.
function sampler(rootPid) {
  const seen = new Map(); // pid -> { ticks, kind }
  // Processes found outside the tree are not read again: the sampler's own CPU is part of the
  // machine's (machine_cpu_s), and reading every process's stat 20 times a second cost 4 core-s
  // in a run. A foreign pid that is gone is forgotten (its number may come back, as ours).
  let foreign = new Set();
  const tick = () => {
    const procs = new Map();
    const listed = readdirSync('/proc');
    foreign = new Set(listed.filter((name) => foreign.has(name)));
    for (const name of listed) {
      if (!/^\d+$/.test(name) || foreign.has(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        procs.set(Number(name), { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) });
      } catch {
        // gone
      }
    }
    const kindOf = (pid) => {
      if (pid === rootPid) return 'nanobench';
      const known = seen.get(pid)?.kind;
      if (known) return known;
      const p = procs.get(pid);
      if (!p || p.ppid <= 1) return undefined;
      const parent = kindOf(p.ppid);
      if (!parent) return undefined;
      if (parent === 'agent') return 'agent';
      let cmd = '';
      try {
        cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {}
      return /nanocoder/i.test(cmd) ? 'agent' : 'suites';
    };
    for (const [pid, p] of procs) {
      const kind = kindOf(pid);
      if (kind) seen.set(pid, { ticks: Math.max(p.ticks, seen.get(pid)?.ticks ?? 0), kind });
      else if (p.ppid <= 1 || foreign.has(String(p.ppid))) foreign.add(String(pid));
    }
  };
  const timer = setInterval(tick, 50);
  return () => {
    clearInterval(timer);
    const sum = { nanobench: 0, agent: 0, suites: 0 };
    for (const { ticks, kind } of seen.values()) sum[kind] += ticks / 100; // USER_HZ
    return sum;
  };
}

/** The whole machine's busy CPU (user and system, every process) in core-seconds, from /proc/stat. */
function machineCpuS() {
  const f = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const [user, nice, system, , , irq, softirq] = f;
  return (user + nice + system + irq + softirq) / 100; // USER_HZ
}

async function run(name, args, env = {}) {
  const db = join(dir, `${name}.sqlite`);
  const all = [join(ROOT, 'dist/cli/main.js'), 'run', 'examples', ...args];
  all.push('--runs', String(RUNS), '--mode', 'hinted', '--db', db, '--json');
  const t0 = Date.now();
  const cpu0 = machineCpuS();
  const p = spawn(process.execPath, all, { cwd: ROOT, env: { ...process.env, ...env } });
  const cpu = sampler(p.pid);
  let out = '';
  let err = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => {
    err += d;
    if (process.env.NB_BENCH_VERBOSE) process.stderr.write(d);
  });
  const code = await new Promise((done) => p.on('close', done));
  const wallS = (Date.now() - t0) / 1000;
  const machineS = machineCpuS() - cpu0;
  const used = cpu();
  if (code !== 0) throw new Error(`${name}: exit ${code}\n${err.slice(-2000)}`);
  const runId = JSON.parse(out).run_id;
  const store = Store.open(db, { readonly: true });
  const trials = store.trials(runId);
  store.close();
  const waitMs = trials.reduce((n, t) => n + (t.details.proxy?.latency_ms?.total_sum ?? 0), 0);
  const labels = {};
  for (const t of trials) {
    const l = t.label ?? t.error_code;
    labels[l] = (labels[l] ?? 0) + 1;
  }
  const queuedMs = trials.reduce((n, t) => n + (t.details.proxy?.latency_ms?.queued_sum ?? 0), 0);
  // From each trial's cassette (when its requests went upstream): the agent's start to its first
  // request (Nanocoder's own start), averaged.
  const starts = trials.flatMap((t) => {
    const file = t.artifacts_dir && join(t.artifacts_dir, CASSETTE_FILE);
    const first = file && existsSync(file) ? loadCassette(file).exchanges[0]?.sent_at : undefined;
    const agent = t.details.agent_started_at;
    return first && agent ? [(Date.parse(first) - Date.parse(agent)) / 1000] : [];
  });
  const firstRequestS = starts.reduce((a, b) => a + b, 0) / Math.max(1, starts.length);
  return {
    wallS,
    cpu: used,
    modelWaitS: waitMs / 1000,
    machineS,
    queuedS: queuedMs / 1000,
    firstRequestS,
    trials,
    labels,
  };
}

const cores = availableParallelism();
const args = ['--agent', 'nanocoder', '--model', 'competent', '--scripts', scripts];
const nano = OLD
  ? await run('nanocoder-old', [...args, '--concurrency', '2'], { NANOBENCH_ONE_POOL: '1' })
  : await run('nanocoder', args);
// The scripted server is a hosted provider: HOSTED_REQUEST_SLOTS requests at once, and agents for them.
const requestSlots = OLD ? 2 : HOSTED_REQUEST_SLOTS;
const agentSlots = OLD ? 2 : agentsFor(requestSlots);
const verifySlots = OLD ? 2 : autoConcurrency();
const ideal = Math.max(nano.modelWaitS / requestSlots, nano.cpu.suites / cores);
// With Nanocoder's and NanoBench's own CPU counted too: no schedule beats all CPU over the cores.
const cpuFloor = (nano.cpu.suites + nano.cpu.agent + nano.cpu.nanobench) / cores;
// The same from the kernel's count of the whole machine (the sampler misses short processes and
// the kernel's own work: namespaces, mounts, forks): the floor of this machine.
const floor = Math.max(nano.modelWaitS / requestSlots, nano.machineS / cores);
const f = (x) => x.toFixed(1);
console.error(
  `bench:run: ${nano.trials.length} trials ${JSON.stringify(nano.labels)}, ${DELAY} ms a reply, ${cores} cores; model wait ${f(nano.modelWaitS)} s summed (and ${f(nano.queuedS)} s waiting for a request slot), first request ${f(nano.firstRequestS)} s after the agent's start on average, suites ${f(nano.cpu.suites)} s CPU`,
);
console.log(
  `wall_s=${f(nano.wallS)} ideal_s=${f(ideal)} ratio=${(nano.wallS / ideal).toFixed(2)} agent_slots=${agentSlots} request_slots=${requestSlots} verify_slots=${verifySlots} agent_cpu_s=${f(nano.cpu.agent)} nanobench_cpu_s=${f(nano.cpu.nanobench)} cpu_floor_s=${f(cpuFloor)} machine_cpu_s=${f(nano.machineS)} floor_s=${f(floor)} ratio_to_floor=${(nano.wallS / floor).toFixed(2)}`,
);
