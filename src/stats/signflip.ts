// The sign-flip (paired permutation) test: if candidate and base are the same agent, each task's
// difference is as likely to be +d as -d, so the observed sum of differences is compared with
// the sums of every assignment of signs. Exact whenever the values sit on a lattice (pass rates
// over a few runs always do: their differences are fractions with small denominators), by
// dynamic programming over the possible sums; otherwise exact by enumeration up to 20 tasks,
// and beyond that Monte Carlo with a fixed seed. McNemar's exact test is the special case of
// one run per side (binary pairs), kept as its own function for the reference tests.
import { logChoose } from './distributions.js';
import { seededRandom } from './random.js';

export interface SignFlipResult {
  /** The observed statistic: the sum of the values. */
  statistic: number;
  /** Two-sided: P(|sum of +-v_i| >= |sum of v_i|) over independent fair signs. */
  p_value: number;
  method: 'exact' | 'monte-carlo';
  /** Draws behind a Monte Carlo p-value; null when exact. */
  draws: number | null;
}

/** Monte Carlo draws: the p-value's standard error at p = 0.05 is then below 0.0005. */
export const MC_DRAWS = 200_000;
export const MC_SEED = 20_260_101;
/** Largest denominator tried when looking for the lattice the values sit on. */
const MAX_DENOMINATOR = 1000;
/** Largest tasks x (sum of lattice values) for the dynamic programme (about 0.1 s). */
const MAX_DP_CELLS = 50_000_000;
const MAX_ENUMERATED = 20;

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * Exact two-sided sign-flip p-value for integer values. The sum with random signs is 2X - A,
 * where A = sum |u_i| and X is the total of a random subset of the |u_i|, so the distribution of
 * X (a subset-sum count, computed in O(n A)) gives every tail probability exactly.
 */
export function signFlipIntegers(values: readonly number[]): number {
  const abs = values.map((u) => Math.abs(u)).filter((u) => u > 0);
  if (!abs.length) return 1;
  if (abs.some((u) => !Number.isInteger(u)))
    throw new RangeError('signFlipIntegers: values must be integers');
  const g = abs.reduce(gcd);
  const a = abs.map((u) => u / g);
  const total = a.reduce((s, u) => s + u, 0);
  const observed = Math.abs(values.reduce((s, u) => s + u, 0)) / g;
  if (observed === 0) return 1;
  // dist[x] = P(the positive-signed values sum to x)
  const dist = new Float64Array(total + 1);
  dist[0] = 1;
  let reach = 0;
  for (const u of a) {
    // In place, from the top down: dist[x - u] still holds the previous step when it is read.
    reach += u;
    for (let x = reach; x >= 0; x--) dist[x] = 0.5 * (dist[x] + (x >= u ? dist[x - u] : 0));
  }
  // |2X - A| >= observed: the upper tail X >= (A + observed) / 2, doubled by symmetry.
  let upper = 0;
  for (let x = (total + observed) / 2; x <= total; x++) upper += dist[x];
  return Math.min(1, 2 * upper);
}

/** The smallest L <= MAX_DENOMINATOR that makes every value an integer, if there is one. */
function latticeOf(values: readonly number[]): number | undefined {
  for (let l = 1; l <= MAX_DENOMINATOR; l++)
    if (
      values.every((v) => Math.abs(v * l - Math.round(v * l)) < 1e-9 * Math.max(1, Math.abs(v * l)))
    )
      return l;
  return undefined;
}

/** Exact by visiting every sign pattern (Gray code: one value changes sign per step). */
function enumerated(v: readonly number[], threshold: number): number {
  let sum = v.reduce((s, x) => s + x, 0);
  const sign = v.map(() => 1);
  let extreme = Math.abs(sum) >= threshold ? 1 : 0;
  const patterns = 2 ** v.length;
  for (let k = 1; k < patterns; k++) {
    const i = 31 - Math.clz32(k & -k); // the bit that flips between Gray codes k-1 and k
    sum -= 2 * sign[i] * v[i];
    sign[i] = -sign[i];
    if (Math.abs(sum) >= threshold) extreme++;
  }
  return extreme / patterns;
}

function monteCarlo(v: readonly number[], threshold: number, draws: number, seed: number): number {
  const rand = seededRandom(seed);
  let extreme = 0;
  for (let d = 0; d < draws; d++) {
    let sum = 0;
    let bits = 0;
    let left = 0;
    for (const x of v) {
      if (left === 0) {
        bits = (rand() * 4294967296) >>> 0;
        left = 32;
      }
      sum += bits & 1 ? x : -x;
      bits >>>= 1;
      left--;
    }
    if (Math.abs(sum) >= threshold) extreme++;
  }
  // Counting the observed assignment among the draws keeps the p-value valid (never 0).
  return (extreme + 1) / (draws + 1);
}

/** The sign-flip test on any paired differences (or weighted differences). */
export function signFlipTest(
  values: readonly number[],
  opts: { draws?: number; seed?: number } = {},
): SignFlipResult {
  const v = values.filter((x) => x !== 0);
  const statistic = values.reduce((s, x) => s + x, 0);
  const exact = (p_value: number): SignFlipResult => ({
    statistic,
    p_value,
    method: 'exact',
    draws: null,
  });
  if (!v.length) return exact(1);
  const l = latticeOf(v);
  if (l !== undefined) {
    const ints = v.map((x) => Math.round(x * l));
    const cells = ints.length * ints.reduce((s, u) => s + Math.abs(u), 0);
    if (cells <= MAX_DP_CELLS) return exact(signFlipIntegers(ints));
  }
  // Sums that equal the observed one up to rounding count as extreme.
  const threshold = Math.abs(statistic) * (1 - 1e-12);
  if (v.length <= MAX_ENUMERATED) return exact(enumerated(v, threshold));
  const draws = opts.draws ?? MC_DRAWS;
  return {
    statistic,
    p_value: monteCarlo(v, threshold, draws, opts.seed ?? MC_SEED),
    method: 'monte-carlo',
    draws,
  };
}

/**
 * McNemar's exact test on binary pairs: of the pairs that disagree, `worse` went pass -> fail
 * and `better` fail -> pass; under no change each is a fair coin. Two-sided:
 * min(1, 2 P(Bin(worse + better, 1/2) <= min(worse, better))).
 */
export function mcnemarExact(worse: number, better: number): number {
  const n = worse + better;
  if (n === 0) return 1;
  let tail = 0;
  for (let k = 0; k <= Math.min(worse, better); k++)
    tail += Math.exp(logChoose(n, k) - n * Math.LN2);
  return Math.min(1, 2 * tail);
}
