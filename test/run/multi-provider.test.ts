// One run over several providers (issue 26): provider-qualified --model names, trials of the
// pairs taking turns, and the per-provider limit on trials at once.
import { describe, expect, it } from 'vitest';
import { parseModels } from '../../src/run/config.js';
import { longestFirst, planTrials, type RunnableTask } from '../../src/run/plan.js';

describe('parseModels', () => {
  const declared = ['openrouter', 'local'];

  it('takes provider:model for scripted and declared providers, in the order given', () => {
    expect(
      parseModels(
        ['openrouter:qwen/qwen3-coder', 'scripted:competent', 'local:qwen2.5-coder'],
        undefined,
        declared,
      ),
    ).toEqual([
      { provider: 'openrouter', model: 'qwen/qwen3-coder' },
      { provider: 'scripted', model: 'competent' },
      { provider: 'local', model: 'qwen2.5-coder' },
    ]);
  });

  it('keeps plain names (colons and all) for --provider, scripted by default', () => {
    expect(parseModels(['llama3:8b', 'competent'], 'ollama', declared)).toEqual([
      { provider: 'ollama', model: 'llama3:8b' },
      { provider: 'ollama', model: 'competent' },
    ]);
    expect(parseModels(['competent'], undefined, [])).toEqual([
      { provider: 'scripted', model: 'competent' },
    ]);
  });

  it('plans a pair named twice once, and refuses a provider without a model', () => {
    expect(parseModels(['local:m', 'm'], 'local', declared)).toEqual([
      { provider: 'local', model: 'm' },
    ]);
    expect(() => parseModels(['local:'], undefined, declared)).toThrow(
      '--model "local:": no model after the provider',
    );
  });
});

const task = (id: string, tier: number) =>
  ({
    task: { task_id: id, complexity_tier: tier, status: { state: 'active' } },
  }) as unknown as RunnableTask;

describe('the plan across providers', () => {
  it('lets the pairs take turns attempt by attempt', () => {
    const plan = planTrials(
      [task('t1', 3)],
      'nanocoder',
      [
        { provider: 'a', model: 'x' },
        { provider: 'b', model: 'y' },
      ],
      ['hinted'],
    );
    expect(plan.slice(0, 4).map((s) => `${s.provider}#${s.attempt}`)).toEqual([
      'a#1',
      'b#1',
      'a#2',
      'b#2',
    ]);
    expect(plan).toHaveLength(10);
  });
});

describe('longestFirst', () => {
  it('starts the higher tiers first and keeps the plan order within a tier', () => {
    const plan = planTrials(
      [task('t1', 1), task('a3', 3), task('b4', 4), task('c3', 3)],
      'nanocoder',
      [
        { provider: 'a', model: 'x' },
        { provider: 'b', model: 'y' },
      ],
      ['hinted'],
      2,
    );
    const order = longestFirst(plan).map(
      (s) => `${s.task.task.task_id}:${s.provider}#${s.attempt}`,
    );
    expect(order).toEqual([
      ...['b4:a#1', 'b4:b#1', 'b4:a#2', 'b4:b#2'],
      ...['a3:a#1', 'a3:b#1', 'a3:a#2', 'a3:b#2'],
      ...['c3:a#1', 'c3:b#1', 'c3:a#2', 'c3:b#2'],
      ...['t1:a#1', 't1:b#1', 't1:a#2', 't1:b#2'],
    ]);
    // The plan itself is unchanged: keys and resume read its order.
    expect(plan[0].task.task.task_id).toBe('t1');
  });
});
