// Reference values for the sign-flip test and McNemar's exact test, each computed by hand.
import { describe, expect, it } from 'vitest';
import {
  MC_DRAWS,
  mcnemarExact,
  signFlipIntegers,
  signFlipTest,
} from '../../src/stats/signflip.js';

/** Brute force over every sign pattern (the definition of the exact p-value), half by half. */
function bruteForce(v: number[]): number {
  const obs = Math.abs(v.reduce((s, x) => s + x, 0)) * (1 - 1e-12);
  const sums = (xs: number[]) =>
    xs.reduce<number[]>((acc, x) => acc.flatMap((s) => [s + x, s - x]), [0]);
  const left = sums(v.slice(0, v.length >> 1));
  const right = sums(v.slice(v.length >> 1));
  let hit = 0;
  for (const a of left) for (const b of right) if (Math.abs(a + b) >= obs) hit++;
  return hit / 2 ** v.length;
}

describe('sign-flip test: exact p-values checked by hand', () => {
  it('[1, 2, 3]: p = 2/8', () => {
    // Sums of +-1 +-2 +-3: 6, 4, 2, 0, 0, -2, -4, -6. |sum| >= 6 for (+,+,+) and (-,-,-) only.
    expect(signFlipTest([1, 2, 3])).toEqual({
      statistic: 6,
      p_value: 0.25,
      method: 'exact',
      draws: null,
    });
  });

  it('six tasks that all went from pass to fail (one run each): p = 2/64', () => {
    // Weighted differences -1/2 each; only all-minus and all-plus reach |sum| = 3.
    const r = signFlipTest([-0.5, -0.5, -0.5, -0.5, -0.5, -0.5]);
    expect(r.p_value).toBe(2 / 64);
    expect(r.statistic).toBe(-3);
  });

  it('five tasks: even all moving the same way gives p = 2/32 = 0.0625', () =>
    expect(signFlipTest([-1, -1, -1, -1, -1]).p_value).toBe(0.0625));

  it('[2.5, 0.5, -0.5, 1.5] (lattice of halves): p = 6/16', () => {
    // x2: [5, 1, -1, 3], observed 8. With +5 and +3 the two 1s give 10, 8, 8, 6: three reach 8;
    // with 5 and 3 of opposite signs the sum is at most 4. Three patterns and their mirrors: 6/16.
    expect(signFlipTest([2.5, 0.5, -0.5, 1.5]).p_value).toBe(6 / 16);
    expect(signFlipIntegers([5, 1, -1, 3])).toBe(6 / 16);
  });

  it('zeros carry no sign, and no difference at all is p = 1', () => {
    expect(signFlipTest([0, 0, 1, 2, 3, 0]).p_value).toBe(0.25);
    expect(signFlipTest([0, 0]).p_value).toBe(1);
    expect(signFlipTest([]).p_value).toBe(1);
    expect(signFlipTest([1, -1]).p_value).toBe(1);
  });

  it('the dynamic programme agrees with brute force on many integer vectors', () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let k = 0; k < 60; k++) {
      const v = Array.from(
        { length: 1 + Math.floor(next() * 12) },
        () => Math.floor(next() * 11) - 5,
      );
      expect(signFlipIntegers(v), v.join(',')).toBeCloseTo(bruteForce(v), 12);
    }
  });

  it('values off any lattice: exact enumeration to 20, then a seeded Monte Carlo', () => {
    const irrational = (n: number) => Array.from({ length: n }, (_, i) => Math.sqrt(i + 2) - 1.3);
    const twelve = irrational(12);
    expect(signFlipTest(twelve).method).toBe('exact');
    expect(signFlipTest(twelve).p_value).toBeCloseTo(bruteForce(twelve), 12);
    const many = irrational(21);
    const r = signFlipTest(many);
    expect(r.method).toBe('monte-carlo');
    expect(r.draws).toBe(MC_DRAWS);
    // Within a few standard errors of the exact value, and the same every time (fixed seed).
    expect(Math.abs(r.p_value - bruteForce(many))).toBeLessThan(0.003);
    expect(signFlipTest(many).p_value).toBe(r.p_value);
  });
});

describe("McNemar's exact test", () => {
  it('1 pair worse, 9 better: 2 (C(10,0) + C(10,1)) / 2^10 = 22/1024', () =>
    expect(mcnemarExact(1, 9)).toBeCloseTo(22 / 1024, 14));
  it('6 worse, 0 better: 2/64; balanced or no discordant pairs: 1', () => {
    expect(mcnemarExact(6, 0)).toBeCloseTo(2 / 64, 14);
    expect(mcnemarExact(4, 4)).toBe(1);
    expect(mcnemarExact(0, 0)).toBe(1);
  });
  it('on binary pairs the sign-flip test is McNemar exact', () => {
    for (const [worse, better] of [
      [5, 1],
      [1, 9],
      [7, 2],
      [12, 3],
      [0, 8],
    ]) {
      const d = [...Array(worse).fill(-1), ...Array(better).fill(1), 0, 0];
      expect(signFlipTest(d).p_value).toBeCloseTo(mcnemarExact(worse, better), 12);
    }
    // 5 worse, 1 better: 2 P(Bin(6, 1/2) <= 1) = 2 (1 + 6) / 64 = 14/64
    expect(mcnemarExact(5, 1)).toBeCloseTo(14 / 64, 14);
  });
});
