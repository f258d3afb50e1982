// One family of paired verdicts (compare's groups, the harness deltas, the leaderboard's pairs):
// which groups Holm corrects over, and the level each detectable change is stated at.
import { describe, expect, it } from 'vitest';
import { MIN_PAIRED_TASKS } from '../../src/stats/paired.js';
import { pairedFamily } from '../../src/stats/paired-family.js';
import type { TaskResult } from '../../src/stats/tasks.js';

const tasks = (n: number, passed: number): TaskResult[] =>
  Array.from({ length: n }, (_, i) => ({ task_id: `t${i}`, passed, scored: 1, score_sum: passed }));

describe('pairedFamily', () => {
  it('tests the groups with enough shared tasks, Holm-corrected over those only', () => {
    const [dropped, same, few] = pairedFamily([
      [tasks(8, 1), tasks(8, 0)], // 8 tasks pass -> fail: p = 2/2^8
      [tasks(8, 1), tasks(8, 1)], // nothing changed: p = 1
      [tasks(MIN_PAIRED_TASKS - 1, 1), tasks(MIN_PAIRED_TASKS - 1, 0)], // too few to ever test
    ]);
    expect(dropped.test.p_value).toBe(2 / 256);
    expect(dropped.p_holm).toBe((2 / 256) * 2); // a family of two, not three
    expect(dropped.verdict).toBe('regression');
    expect(same.p_holm).toBe(1);
    expect(same.verdict).toBe('not distinguishable from noise');
    expect(few.p_holm).toBeNull();
    expect(few.verdict).toBeNull();
    // Detectable changes are stated at the strictest Holm step of the family tested.
    for (const g of [dropped, same, few]) expect(g.alpha).toBe(0.025);
  });

  it('a family of one is tested at the family level itself', () => {
    const [g] = pairedFamily([[tasks(8, 0), tasks(8, 1)]], 0.05);
    expect(g.p_holm).toBe(2 / 256);
    expect(g.verdict).toBe('improvement');
    expect(g.alpha).toBe(0.05);
  });
});
