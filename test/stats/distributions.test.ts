import { describe, expect, it } from 'vitest';
import {
  logChoose,
  normalQuantile,
  studentTCdf,
  studentTQuantile,
} from '../../src/stats/distributions.js';

describe('quantiles', () => {
  // Standard normal and Student t tables (any statistics text; R qnorm / qt agree).
  it.each([
    [0.975, 1.959964],
    [0.8, 0.841621],
    [0.995, 2.575829],
    [0.001, -3.090232],
  ])('normal %f -> %f', (p, z) => expect(normalQuantile(p)).toBeCloseTo(z, 5));

  it.each([
    [1, 12.706205],
    [3, 3.182446],
    [5, 2.570582],
    [30, 2.042272],
    [1000, 1.962339],
  ])('t(0.975, df %i) -> %f', (df, t) => expect(studentTQuantile(0.975, df)).toBeCloseTo(t, 5));

  it('t is symmetric and its CDF inverts its quantile', () => {
    expect(studentTQuantile(0.025, 7)).toBeCloseTo(-studentTQuantile(0.975, 7), 10);
    expect(studentTCdf(studentTQuantile(0.9, 4), 4)).toBeCloseTo(0.9, 10);
    expect(studentTCdf(0, 3)).toBeCloseTo(0.5, 12);
  });

  it('log binomial coefficients', () => {
    expect(Math.exp(logChoose(10, 3))).toBeCloseTo(120, 8);
    expect(Math.exp(logChoose(52, 5))).toBeCloseTo(2_598_960, 2);
  });
});
