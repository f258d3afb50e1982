// The paired comparison over tasks (issue 23, items 1 and 5).
import { describe, expect, it } from 'vitest';
import {
  flipsNeeded,
  MIN_PAIRED_TASKS,
  pairedDifference,
  pairTasks,
} from '../../src/stats/paired.js';
import { mcnemarExact } from '../../src/stats/signflip.js';
import type { TaskResult } from '../../src/stats/tasks.js';

const task = (task_id: string, passed: number, scored: number): TaskResult => ({
  task_id,
  passed,
  scored,
  score_sum: passed,
});
const tasks = (outcomes: [number, number][]) => outcomes.map(([k, n], i) => task(`t${i}`, k, n));

describe('pairing', () => {
  it('pairs the tasks both sides scored, in the base order', () => {
    const p = pairTasks(
      [task('a', 1, 1), task('b', 0, 1), task('c', 0, 0)],
      [task('c', 1, 1), task('b', 1, 1), task('x', 1, 1)],
    );
    expect(p.map((x) => x.task_id)).toEqual(['b']);
  });
});

describe('pairedDifference', () => {
  it('six tasks from pass to fail: -100 pp, p = 2/64, worse', () => {
    const d = pairedDifference(tasks(Array(6).fill([1, 1])), tasks(Array(6).fill([0, 1])));
    expect(d.tasks).toBe(6);
    expect(d.pass_rate).toEqual({ estimate: -1, ci95: { low: -1, high: -1 } });
    expect(d.test.p_value).toBe(2 / 64);
    expect(d.direction).toBe('worse');
    expect(d.tasks_changed).toEqual({ worse: 6, better: 0, same: 0 });
  });

  it('one run per side: the p-value is McNemar exact on the discordant tasks', () => {
    // 7 tasks pass -> fail, 2 fail -> pass, 11 unchanged.
    const b = tasks([
      ...Array(7).fill([1, 1]),
      ...Array(2).fill([0, 1]),
      ...Array(11).fill([1, 1]),
    ]);
    const c = tasks([
      ...Array(7).fill([0, 1]),
      ...Array(2).fill([1, 1]),
      ...Array(11).fill([1, 1]),
    ]);
    const d = pairedDifference(b, c);
    expect(d.test.p_value).toBeCloseTo(mcnemarExact(7, 2), 12);
    expect(d.pass_rate.estimate).toBeCloseTo(-5 / 20, 12);
  });

  it('weighs each task by the runs behind its difference', () => {
    // Task a: 5/5 -> 0/5, weight 5x5/10 = 2.5, difference -1 -> -2.5.
    // Tasks b, c: 0/1 -> 1/1, weight 1/2 each -> +0.5 each. Statistic -1.5 (x2: -5, 1, 1).
    // Patterns of +-5 +-1 +-1 with |sum| >= 3: the 5's sign decides (|5 +- 1 +- 1| >= 3 always):
    // all 8 patterns reach it, p = 1. Unweighted the two +1 would outvote the -1.
    const d = pairedDifference(
      [task('a', 5, 5), task('b', 0, 1), task('c', 0, 1)],
      [task('a', 0, 5), task('b', 1, 1), task('c', 1, 1)],
    );
    expect(d.test.statistic).toBeCloseTo(-1.5, 12);
    expect(d.direction).toBe('worse');
    expect(d.test.p_value).toBe(1);
    expect(d.pass_rate.estimate).toBeCloseTo(1 / 3, 12); // the estimate weighs tasks once
  });

  it('the interval is a t interval over task differences', () => {
    // d = -1, 0, 0, -1, 0, 0, 0, 0: mean -0.25, sd = sqrt((2 x 0.5625 + 6 x 0.0625) / 7) = 0.46291,
    // half = t(0.975, 7) x sd / sqrt(8) = 2.364624 x 0.46291 / 2.828427 = 0.38700
    const b = tasks(Array(8).fill([1, 1]));
    const c = tasks([
      [0, 1],
      [1, 1],
      [1, 1],
      [0, 1],
      [1, 1],
      [1, 1],
      [1, 1],
      [1, 1],
    ]);
    const d = pairedDifference(b, c);
    expect(d.pass_rate.estimate).toBe(-0.25);
    expect(d.pass_rate.ci95.low).toBeCloseTo(-0.637, 3);
    expect(d.pass_rate.ci95.high).toBeCloseTo(0.137, 3);
  });

  it('mean scores are paired too (partial credit)', () => {
    const b = [{ task_id: 'a', passed: 0, scored: 2, score_sum: 1 }];
    const c = [{ task_id: 'a', passed: 1, scored: 2, score_sum: 1.5 }];
    expect(pairedDifference(b, c).mean_score.estimate).toBeCloseTo(0.25, 12);
  });

  it('same results on both sides: p = 1, no direction', () => {
    const t = tasks([
      [1, 1],
      [0, 5],
      [3, 5],
    ]);
    const d = pairedDifference(t, t);
    expect(d.test.p_value).toBe(1);
    expect(d.direction).toBe('none');
  });
});

describe('the smallest detectable change', () => {
  it('needs flipsNeeded(alpha) tasks moving the same way at the least', () => {
    expect(flipsNeeded(0.05)).toBe(6); // 2/2^5 = 0.0625 > 0.05 >= 2/2^6
    expect(flipsNeeded(0.05 / 6)).toBe(8); // 2/2^7 = 0.0156 > 0.0083 >= 2/2^8
    expect(MIN_PAIRED_TASKS).toBe(6);
  });

  it('from the observed spread, by hand', () => {
    // 40 single-run tasks, 8 pass -> fail: d = -1 (x8), 0 (x32); weights 1/2, sum 20.
    // Weighted mean -0.2; sum w^2 (d - c)^2 = 0.25 x (8 x 0.64 + 32 x 0.04) = 1.6; x 40/39 = 1.641.
    // t(0.975, 39) + t(0.8, 39) = 2.022691 + 0.850935 = 2.873626;
    // 2.873626 x sqrt(1.641) / 20 = 2.873626 x 1.281025 / 20 = 0.18406 (above the floor 6/40).
    const b = tasks(Array(40).fill([1, 1]));
    const c = tasks([...Array(8).fill([0, 1]), ...Array(32).fill([1, 1])]);
    expect(pairedDifference(b, c).detectable).toBeCloseTo(0.18406, 4);
  });

  it('never below the exact floor (that many tasks moving by one run each), none with too few tasks', () => {
    const same = tasks(Array(10).fill([1, 1]));
    expect(pairedDifference(same, same).detectable).toBeCloseTo(6 / 10, 12);
    const five = tasks(Array(5).fill([1, 1]));
    expect(pairedDifference(five, five).detectable).toBeNull();
    expect(pairedDifference(same, same, { alpha: 0.05 / 6 }).detectable).toBeCloseTo(0.8, 12);
    // Five runs a task: six tasks each losing one run of five would do: 6 x 1/5 / 10.
    const fives = tasks(Array(10).fill([5, 5]));
    expect(pairedDifference(fives, fives).detectable).toBeCloseTo(0.12, 12);
  });
});
