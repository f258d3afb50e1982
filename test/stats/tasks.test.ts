// Rates over tasks: each task once, with the cluster interval (issue 23, item 4).
import { describe, expect, it } from 'vitest';
import {
  clusterInterval,
  type TaskResult,
  taskResults,
  taskWeightedRate,
} from '../../src/stats/tasks.js';
import { wilson } from '../../src/stats/wilson.js';
import { cell, trial } from '../report/make-trials.js';

const task = (task_id: string, passed: number, scored: number): TaskResult => ({
  task_id,
  passed,
  scored,
  score_sum: passed,
});

describe('taskResults', () => {
  it('reduces trials to tasks, natural order; infra errors count nowhere', () => {
    const trials = [
      ...cell(3, 5, { task_id: 't10' }),
      ...cell(1, 1, { task_id: 't2' }),
      trial({ task_id: 't2', status: 'error', attempt: 2 }),
    ];
    expect(taskResults(trials)).toEqual([
      { task_id: 't2', scored: 1, passed: 1, score_sum: 1 },
      { task_id: 't10', scored: 5, passed: 3, score_sum: 3 },
    ]);
  });
});

describe('taskWeightedRate', () => {
  it('weighs each task once: 5/5 on a tier-3 task and 0/1 on a tier-1 task is 50%, not 83%', () => {
    const r = taskWeightedRate([task('a', 5, 5), task('b', 0, 1)]);
    expect(r.pass_rate).toBe(0.5);
    expect(r.tasks).toBe(2);
    expect(r.scored).toBe(6);
  });

  it('the cluster interval on a case computed by hand', () => {
    // Tasks: 1/1, 0/1, 3/5, 2/5 -> rates 1, 0, 0.6, 0.4; mean 0.5.
    // Squared deviations 0.25 + 0.25 + 0.01 + 0.01 = 0.52; se^2 = 0.52 / (4 x 3) = 0.043333.
    // Effective size n* = 0.5 x 0.5 / 0.043333 = 5.7692 (at most the 12 runs).
    // q = t(0.975, df 3) = 3.182446, q^2 = 10.12796; Wilson at p = 0.5, n*:
    //   centre = (0.5 + q^2/(2n*)) / (1 + q^2/n*) = 0.5
    //   half = q / (1 + q^2/n*) x sqrt(0.25/n* + q^2/(4 n*^2))
    //        = 3.182446 / 2.755513 x sqrt(0.043333 + 0.076072) = 1.154938 x 0.345550 = 0.399090
    // -> [0.100910, 0.899090]
    const r = taskWeightedRate([
      task('a', 1, 1),
      task('b', 0, 1),
      task('c', 3, 5),
      task('d', 2, 5),
    ]);
    expect(r.pass_rate).toBe(0.5);
    expect(r.ci95.low).toBeCloseTo(0.10091, 5);
    expect(r.ci95.high).toBeCloseTo(0.89909, 5);
    expect(r.half_width).toBeCloseTo(0.39909, 5);
    expect(r.method).toBe('cluster');
  });

  it('is wider than the pooled Wilson interval when outcomes are decided by the task', () => {
    // Ten tasks, five always solved and five never, five runs each: pooled 25/50 reads as 50
    // independent draws; over tasks there are ten.
    const ts = Array.from({ length: 10 }, (_, i) => task(`t${i}`, i < 5 ? 5 : 0, 5));
    const pooled = wilson(25, 50);
    const r = taskWeightedRate(ts);
    expect(r.ci95.high - r.ci95.low).toBeGreaterThan(pooled.high - pooled.low + 0.15);
  });

  it('all tasks at 0: each task counts as one draw, never a zero-width interval', () => {
    const r = taskWeightedRate(Array.from({ length: 8 }, (_, i) => task(`t${i}`, 0, 5)));
    expect(r.pass_rate).toBe(0);
    expect(r.ci95.low).toBe(0);
    expect(r.ci95).toEqual(wilson(0, 8)); // 8 tasks as 8 draws: [0, 0.32]
  });

  it('one task: its runs are independent draws (the cell Wilson interval); none: no rate', () => {
    expect(taskWeightedRate([task('a', 3, 5)])).toMatchObject({
      pass_rate: 0.6,
      ci95: wilson(3, 5),
      method: 'one task',
    });
    expect(taskWeightedRate([task('a', 0, 0)])).toMatchObject({
      tasks: 0,
      pass_rate: null,
      ci95: { low: 0, high: 1 },
      method: 'none',
    });
  });

  it('clusterInterval needs two tasks', () => expect(() => clusterInterval([1], 1)).toThrow());
});
