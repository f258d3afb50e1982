import { describe, expect, it } from 'vitest';
import { rateOf, Tally, tallyBy } from '../../src/stats/aggregate.js';
import { wilson } from '../../src/stats/wilson.js';
import { cell, trial } from '../report/make-trials.js';

describe('rates', () => {
  it('k/n counts scored trials only; infra errors sit beside, outside k, n and the mean', () => {
    const r = rateOf([
      ...cell(3, 5),
      trial({ status: 'error', attempt: 6 }),
      trial({ status: 'error', attempt: 7 }),
    ]);
    expect(r).toMatchObject({ trials: 7, scored: 5, passed: 3, errors: 2, pass_rate: 0.6 });
    expect(r.mean_score).toBeCloseTo(0.6);
    expect(r.ci95).toEqual(wilson(3, 5));
  });

  it('the mean includes partial credit, the pass rate does not', () => {
    const r = rateOf([
      trial({ label: 'partial_fix_only', score: 0.5 }),
      trial({ label: 'incorrect_fix', score: 0.1, mode: 'navigation' }),
      trial({ label: 'pass', score: 1 }),
    ]);
    expect(r.passed).toBe(1);
    expect(r.mean_score).toBeCloseTo(1.6 / 3);
  });

  it('nothing scored: no rate, no mean, the whole interval', () => {
    const r = rateOf([trial({ status: 'error' })]);
    expect(r).toMatchObject({ scored: 0, errors: 1, pass_rate: null, mean_score: null });
    expect(r.ci95).toEqual({ low: 0, high: 1 });
  });

  it('flags a group with any non-deterministic trial', () => {
    expect(rateOf(cell(1, 2)).non_deterministic).toBe(false);
    expect(rateOf([...cell(1, 2), trial({ flags: ['non_deterministic'] })]).non_deterministic).toBe(
      true,
    );
  });

  it('label counts: most frequent first, ties by name; errors have no label', () => {
    const t = new Tally();
    for (const x of [
      ...cell(1, 4, {}, 'zero_signal'),
      trial({ label: 'hallucinated_api', score: 0 }),
      trial({ status: 'error' }),
    ])
      t.add(x);
    expect(Object.entries(t.labelCounts())).toEqual([
      ['zero_signal', 3],
      ['hallucinated_api', 1],
      ['pass', 1],
    ]);
  });

  it('tallyBy: a trial may count under several keys, or none', () => {
    const m = tallyBy(
      [trial({ task_id: 'a' }), trial({ task_id: 'b' }), trial({ task_id: 'c' })],
      (t) => (t.task_id === 'a' ? ['x', 'y'] : t.task_id === 'b' ? 'x' : undefined),
    );
    expect(m.get('x')?.trials).toBe(2);
    expect(m.get('y')?.trials).toBe(1);
    expect(m.size).toBe(2);
  });
});
