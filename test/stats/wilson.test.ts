import { describe, expect, it } from 'vitest';
import { differenceInterval, overlaps, verdict, wilson } from '../../src/stats/wilson.js';

describe('wilson', () => {
  // Reference values: R binom::binom.wilson / statsmodels proportion_confint(method="wilson").
  it.each([
    [0, 5, 0, 0.4345],
    [5, 5, 0.5655, 1],
    [3, 5, 0.2307, 0.8824],
    [1, 10, 0.0179, 0.4042],
    [50, 100, 0.4038, 0.5962],
    [0, 1, 0, 0.7935],
    [1, 1, 0.2065, 1],
  ])('%i/%i -> [%f, %f]', (k, n, low, high) => {
    const w = wilson(k, n);
    expect(w.low).toBeCloseTo(low, 4);
    expect(w.high).toBeCloseTo(high, 4);
  });
  it('0/N is exactly 0 at the bottom and N/N exactly 1 at the top', () => {
    expect(wilson(0, 7).low).toBe(0);
    expect(wilson(7, 7).high).toBe(1);
  });
  it('n = 0 is the whole range (no information)', () =>
    expect(wilson(0, 0)).toEqual({ low: 0, high: 1 }));
  it('rejects impossible counts', () => expect(() => wilson(6, 5)).toThrow(RangeError));
});

describe('overlap rule', () => {
  it('touching intervals overlap', () =>
    expect(overlaps({ low: 0, high: 0.5 }, { low: 0.5, high: 1 })).toBe(true));
  it('5/5 vs 0/5 is a real difference', () => {
    expect(verdict(wilson(5, 5), wilson(0, 5))).toBe('regression');
    expect(verdict(wilson(0, 5), wilson(5, 5))).toBe('improvement');
  });
  it('3/5 vs 2/5 is noise', () =>
    expect(verdict(wilson(3, 5), wilson(2, 5))).toBe('not distinguishable from noise'));
  it('1/1 vs 0/1 is noise: one run proves little', () =>
    expect(verdict(wilson(1, 1), wilson(0, 1))).toBe('not distinguishable from noise'));
});

describe('differenceInterval (Newcombe 1998, method 10)', () => {
  // Newcombe's worked examples (Statistics in Medicine 17:873-890, table II).
  it.each([
    [56, 70, 48, 80, 0.0524, 0.3339],
    [9, 10, 3, 10, 0.1705, 0.809],
  ])('%i/%i - %i/%i -> [%f, %f]', (k1, n1, k2, n2, low, high) => {
    const d = differenceInterval(k1, n1, k2, n2);
    expect(d.estimate).toBeCloseTo(k1 / n1 - k2 / n2, 10);
    expect(d.low).toBeCloseTo(low, 3);
    expect(d.high).toBeCloseTo(high, 3);
  });
  it('no data on a side: the whole range', () =>
    expect(differenceInterval(0, 0, 3, 5)).toEqual({ estimate: null, low: -1, high: 1 }));
  it('whenever the Wilson intervals separate, the difference interval excludes 0', () => {
    for (let n = 1; n <= 8; n++)
      for (let a = 0; a <= n; a++)
        for (let b = 0; b <= n; b++) {
          if (overlaps(wilson(a, n), wilson(b, n))) continue;
          const d = differenceInterval(a, n, b, n);
          expect(d.low > 0 || d.high < 0, `${a}/${n} vs ${b}/${n}`).toBe(true);
        }
  });
});
