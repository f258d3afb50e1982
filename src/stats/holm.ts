// Family-wise control for the groups of one comparison: Holm's step-down procedure (Holm 1979).
// Sorted p(1) <= ... <= p(m), the j-th smallest is compared with alpha / (m - j + 1) until one
// fails; equivalently each p-value is adjusted to max over j <= i of (m - j + 1) p(j), and a
// hypothesis is rejected when its adjusted p-value is at most alpha. The chance of any false
// rejection stays at most alpha whatever the dependence between the tests.

/** Holm-adjusted p-values, in the order given (ties keep their order: deterministic). */
export function holmAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p || a.i - b.i);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, j) => {
    running = Math.max(running, Math.min(1, (m - j) * p));
    adjusted[i] = running;
  });
  return adjusted;
}

export type FamilyVerdict = 'improvement' | 'regression' | 'not distinguishable from noise';

/**
 * Verdicts for a family of tests at family-wise level alpha: a test is a finding when its Holm
 * adjusted p-value is at most alpha, a regression or an improvement by the sign of its effect.
 */
export function familyVerdicts(
  tests: readonly { p_value: number; direction: 'worse' | 'better' | 'none' }[],
  alpha = 0.05,
): { p_holm: number; verdict: FamilyVerdict }[] {
  const adjusted = holmAdjust(tests.map((t) => t.p_value));
  return tests.map((t, i) => ({
    p_holm: adjusted[i],
    verdict:
      adjusted[i] > alpha || t.direction === 'none'
        ? 'not distinguishable from noise'
        : t.direction === 'worse'
          ? 'regression'
          : 'improvement',
  }));
}
