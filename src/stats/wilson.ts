// Wilson score interval for a binomial proportion (Wilson 1927). Unlike the normal
// approximation it stays inside [0, 1] and is honest at 0/N and N/N, which small N makes common.

export interface Interval {
  low: number;
  high: number;
}

/** z for a two-sided 95% interval. */
export const Z95 = 1.959963984540054;

export function wilson(successes: number, n: number, z = Z95): Interval {
  if (
    !Number.isInteger(successes) ||
    !Number.isInteger(n) ||
    n < 0 ||
    successes < 0 ||
    successes > n
  )
    throw new RangeError(`wilson: need integers 0 <= successes <= n, got ${successes}/${n}`);
  return wilsonAt(n === 0 ? 0 : successes / n, n, z);
}

/**
 * The Wilson interval at a proportion p and a sample size n that need not be whole: an
 * effective sample size, as the interval over tasks uses (src/stats/tasks.ts).
 */
export function wilsonAt(p: number, n: number, z = Z95): Interval {
  if (n === 0) return { low: 0, high: 1 };
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z / denom) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // Clamp away floating-point dust at the ends (0/N must give exactly 0, N/N exactly 1).
  return {
    low: p <= 0 ? 0 : Math.max(0, centre - half),
    high: p >= 1 ? 1 : Math.min(1, centre + half),
  };
}

/** Two results differ only if their intervals do not overlap. */
export function overlaps(a: Interval, b: Interval): boolean {
  return a.low <= b.high && b.low <= a.high;
}

/**
 * 95% interval on the difference of two proportions k1/n1 - k2/n2: Newcombe's hybrid score
 * interval (Newcombe 1998, method 10), built from the two Wilson intervals. Used to show the size
 * of a difference (the navigation delta), not to call one: the overlap rule is stricter, since
 * non-overlapping Wilson intervals always give a difference interval that excludes 0.
 */
export function differenceInterval(
  k1: number,
  n1: number,
  k2: number,
  n2: number,
): Interval & { estimate: number | null } {
  if (n1 === 0 || n2 === 0) return { estimate: null, low: -1, high: 1 };
  const p1 = k1 / n1;
  const p2 = k2 / n2;
  const a = wilson(k1, n1);
  const b = wilson(k2, n2);
  const d = p1 - p2;
  return {
    estimate: d,
    low: Math.max(-1, d - Math.hypot(p1 - a.low, b.high - p2)),
    high: Math.min(1, d + Math.hypot(a.high - p1, p2 - b.low)),
  };
}

export type Verdict = 'improvement' | 'regression' | 'not distinguishable from noise';

export function verdict(base: Interval, candidate: Interval): Verdict {
  if (overlaps(base, candidate)) return 'not distinguishable from noise';
  return candidate.low > base.high ? 'improvement' : 'regression';
}
