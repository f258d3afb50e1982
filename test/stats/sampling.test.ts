// The sampling policy (whitepaper §8.5): runs per task by tier, overridable with --runs, and how a
// report states it.
import { describe, expect, it } from 'vitest';
import { planTrials, runnableStates, runsForTier } from '../../src/run/plan.js';
import { samplingPolicy, undersampled } from '../../src/stats/sampling.js';
import { EXAMPLES } from '../helpers/cli.js';
import { loadInline } from '../helpers/tasks.js';

const tasks = loadInline(EXAMPLES);
const tierOf = (id: string) => tasks.find((t) => t.task.task_id === id)!.task.complexity_tier;

describe('runsForTier', () => {
  it.each([
    [1, 1],
    [2, 1],
    [3, 5],
    [4, 5],
  ])('tier %i -> %i run(s)', (tier, runs) => expect(runsForTier(tier)).toBe(runs));
});

describe('planTrials', () => {
  const models = [
    { provider: 'p', model: 'a' },
    { provider: 'p', model: 'b' },
  ];

  it('without --runs: each task gets its tier runs, per model and mode', () => {
    const plan = planTrials(tasks, 'nanocoder', models, ['hinted', 'navigation']);
    for (const lt of tasks) {
      const id = lt.task.task_id;
      const mine = plan.filter((s) => s.task.task.task_id === id);
      expect(mine).toHaveLength(runsForTier(tierOf(id)) * 2 * 2);
      const attempts = mine
        .filter((s) => s.model === 'a' && s.mode === 'hinted')
        .map((s) => s.attempt);
      expect(attempts).toEqual(Array.from({ length: runsForTier(tierOf(id)) }, (_, i) => i + 1));
    }
    // the example tiers are 1, 2, 3, 3, 4
    expect(plan).toHaveLength((1 + 1 + 5 + 5 + 5) * 2 * 2);
  });

  it('--runs overrides the tier for every task', () => {
    const plan = planTrials(tasks, 'nop', models.slice(0, 1), ['hinted'], 3);
    expect(plan).toHaveLength(tasks.length * 3);
    expect(new Set(plan.map((s) => s.key)).size).toBe(plan.length);
  });

  it('retired tasks are not planned', () => {
    const retired = {
      ...tasks[0],
      task: { ...tasks[0].task, status: { state: 'retired' as const, reason: 'flaky' } },
    };
    expect(planTrials([retired], 'nop', models, ['hinted'])).toEqual([]);
  });

  it('calibrating tasks are planned only when the run asks for them (run --calibrating)', () => {
    const calibrating = {
      ...tasks[0],
      task: { ...tasks[0].task, status: { state: 'calibrating' as const } },
    };
    expect(planTrials([calibrating], 'nop', models, ['hinted'])).toEqual([]);
    expect(
      planTrials([calibrating], 'nop', models, ['hinted'], 1, runnableStates(true)),
    ).toHaveLength(models.length);
    expect(runnableStates(false)).toEqual(['active']);
  });
});

describe('samplingPolicy', () => {
  it('states the tier policy and the tiers present', () => {
    const p = samplingPolicy(undefined, [1, 3, 3, 4]);
    expect(p.kind).toBe('tier');
    expect(p.summary).toMatch(/tiers 1-2 1 run, tiers 3-4 5 runs/);
    expect(p.tiers).toEqual([
      { tier: 1, runs: 1, tasks: 1 },
      { tier: 3, runs: 5, tasks: 2 },
      { tier: 4, runs: 5, tasks: 1 },
    ]);
  });

  it('states an override', () => {
    const p = samplingPolicy(2, [1, 4]);
    expect(p).toMatchObject({ kind: 'override', runs_override: 2 });
    expect(p.summary).toMatch(/--runs 2/);
    expect(p.tiers.map((t) => t.runs)).toEqual([2, 2]);
  });

  it('tier 3-4 cells with fewer than five scored runs are undersampled', () => {
    expect(undersampled(3, 4)).toBe(true);
    expect(undersampled(4, 5)).toBe(false);
    expect(undersampled(2, 1)).toBe(false);
    expect(undersampled(undefined, 1)).toBe(false);
  });
});
