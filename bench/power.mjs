// Benchmark: how often does `nanobench compare` call a regression, with no change and with a real
// one? Simulates stored runs on the shipped dataset's shape (datasets/nanobench-v1: its tasks,
// their tiers, the tier sampling policy: one run for tiers 1-2, five for tiers 3-4), for a
// realistic comparison of three models in both modes (six groups, one family). Each group's
// per-task solve probabilities are drawn from Beta(0.4, 0.4) (most tasks almost always or almost
// never solved, as on real leaderboards); the candidate is worse by D percentage points on
// average, every task shifted by the same amount on the logit scale. Each simulated pair of runs
// goes through compareRuns from dist/ (what `nanobench compare` and `ci comment` call), and both
// rules' verdicts are counted:
//   false_alarm: share of comparisons with a wrong finding in any group: at D = 0 any regression
//                or improvement; at D > 0 any improvement (family-wise)
//   power:       share of the (truly worse) groups called "regression" (at D = 0: the share of
//                groups called regression, the rule's size)
// Then the coverage of the 95% intervals over tasks (the headline rates) against the true mean
// solve rate, beside the pooled-trial Wilson interval's, and the median change each group's
// verdict says it could detect (to set beside the power lines). Prints figures; asserts nothing.
//   npm run bench:power             (builds first)
//   node bench/power.mjs [sims] [deltas]   (uses dist/ as it is; default 1000 simulations a line,
//                                          deltas 0,5,10,20 pp)
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runsForTier } from '../dist/run/plan.js';
import { compareRuns } from '../dist/stats/compare.js';
import { seededRandom } from '../dist/stats/random.js';
import { loadDataset } from '../dist/task/load.js';

const SIMS = Number(process.argv[2] ?? 1000);
const DATASET = join(dirname(fileURLToPath(import.meta.url)), '..', 'datasets', 'nanobench-v1');
const MODELS = ['model-a', 'model-b', 'model-c'];
const MODES = ['hinted', 'navigation'];
const DELTAS = (process.argv[3] ?? '0,5,10,20').split(',').map(Number);
const BETA = 0.4;

const rand = seededRandom(23);

// Beta(a, a) from two gammas (Marsaglia and Tsang; a < 1 by the u^(1/a) boost).
function gamma(a) {
  if (a < 1) return gamma(a + 1) * rand() ** (1 / a);
  const d = a - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x;
    let v;
    do {
      x = Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = rand();
    if (u < 1 - 0.0331 * x ** 4 || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v)))
      return d * v;
  }
}
const beta = () => {
  const x = gamma(BETA);
  return x / (x + gamma(BETA));
};
const shifted = (p, shift) => 1 / (1 + Math.exp(Math.log(1 / p - 1) + shift));

// The logit shift that makes the candidate D pp worse on average, on a fixed sample of
// probabilities (common random numbers: a smooth function of the shift, solved by bisection).
const SAMPLE = Array.from({ length: 100_000 }, beta).map((p) =>
  Math.log(Math.min(1 - 1e-12, Math.max(1e-12, p)) / (1 - Math.min(1 - 1e-12, Math.max(1e-12, p)))),
);
const meanOf = (shift) =>
  SAMPLE.reduce((s, l) => s + 1 / (1 + Math.exp(shift - l)), 0) / SAMPLE.length;
const BASE_MEAN = meanOf(0);
const shifts = new Map();
function shiftFor(dpp) {
  if (!shifts.has(dpp)) shifts.set(dpp, solveShift(dpp));
  return shifts.get(dpp);
}
function solveShift(dpp) {
  if (dpp === 0) return 0;
  let lo = 0;
  let hi = 20;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (BASE_MEAN - meanOf(mid) < dpp / 100) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** The shipped dataset's tasks and tiers; 100 tasks repeat its tier mix. */
function shape(n) {
  const shipped = loadDataset(DATASET).map((t) => ({
    id: t.task.task_id,
    tier: t.task.complexity_tier,
  }));
  return Array.from({ length: n }, (_, i) => ({
    id: n === shipped.length ? shipped[i].id : `task-${i + 1}`,
    tier: shipped[i % shipped.length].tier,
  }));
}

function trialsOf(tasks, probs, model, mode, into) {
  tasks.forEach((t, i) => {
    for (let attempt = 1; attempt <= runsForTier(t.tier); attempt++) {
      const pass = rand() < probs[i];
      into.push({
        task_id: t.id,
        provider: 'sim',
        model,
        mode,
        attempt,
        status: 'scored',
        score: pass ? 1 : 0,
        label: pass ? 'pass' : 'incorrect_fix',
        flags: [],
      });
    }
  });
}

function simulate(tasks, dpp, tally) {
  const shift = shiftFor(dpp);
  const truth = { base: BASE_MEAN, candidate: meanOf(shift) };
  const tiers = Object.fromEntries(tasks.map((t) => [t.id, t.tier]));
  const config = { agent: 'nanocoder' };
  const line = { paired: { alarms: 0, hits: 0 }, overlap: { alarms: 0, hits: 0 } };
  for (let s = 0; s < SIMS; s++) {
    const base = [];
    const cand = [];
    for (const model of MODELS)
      for (const mode of MODES) {
        const p = tasks.map(beta);
        trialsOf(tasks, p, model, mode, base);
        trialsOf(
          tasks,
          p.map((x) => shifted(x, shift)),
          model,
          mode,
          cand,
        );
      }
    const c = compareRuns(
      { id: 'base', config, trials: base, tiers },
      { id: 'candidate', config, trials: cand, tiers },
    );
    for (const [rule, verdictOf] of [
      ['paired', (g) => g.verdict],
      ['overlap', (g) => g.overlap.verdict],
    ]) {
      const vs = c.groups.map(verdictOf);
      const wrong =
        dpp === 0
          ? vs.some((v) => v !== 'not distinguishable from noise')
          : vs.includes('improvement');
      if (wrong) line[rule].alarms++;
      line[rule].hits += vs.filter((v) => v === 'regression').length / vs.length;
    }
    for (const g of c.groups) {
      if (dpp === 0 && g.paired.detectable !== null) tally.detectable.push(g.paired.detectable);
      tally.intervals += 2;
      for (const [rate, pooled, t] of [
        [g.base_tasks, g.base, truth.base],
        [g.candidate_tasks, g.candidate, truth.candidate],
      ]) {
        if (rate.ci95.low <= t && t <= rate.ci95.high) tally.cluster++;
        if (pooled.ci95.low <= t && t <= pooled.ci95.high) tally.pooled++;
        tally.width += rate.ci95.high - rate.ci95.low;
      }
    }
  }
  return line;
}

const f3 = (x) => x.toFixed(3);
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return (100 * s[Math.floor(s.length / 2)]).toFixed(1);
};
const t0 = process.hrtime.bigint();
const shippedSize = loadDataset(DATASET).length;
const coverage = [];
for (const n of [shippedSize, 100]) {
  const tasks = shape(n);
  const tally = { intervals: 0, cluster: 0, pooled: 0, width: 0, detectable: [] };
  const lines = DELTAS.map((d) => [d, simulate(tasks, d, tally)]);
  for (const rule of ['overlap', 'paired'])
    for (const [d, line] of lines)
      console.log(
        `rule=${rule} tasks=${n} delta_pp=${d} false_alarm=${f3(line[rule].alarms / SIMS)} power=${f3(line[rule].hits / SIMS)}`,
      );
  coverage.push(
    `coverage tasks=${n} nominal=0.95 task_interval=${f3(tally.cluster / tally.intervals)} pooled_wilson=${f3(tally.pooled / tally.intervals)} mean_width_pp=${((100 * tally.width) / tally.intervals).toFixed(1)} intervals=${tally.intervals}`,
  );
  if (tally.detectable.length)
    coverage.push(
      `detectable tasks=${n} rule=paired median_pp=${median(tally.detectable)} (what each group's verdict states it could detect at 80% power, with no change)`,
    );
}
for (const line of coverage) console.log(line);
const secs = Number(process.hrtime.bigint() - t0) / 1e9;
console.error(
  `bench:power: ${SIMS} simulations a line, ${MODELS.length} models x ${MODES.length} modes per comparison, Beta(${BETA}, ${BETA}) solve probabilities; ${secs.toFixed(1)} s`,
);
