// One run over several providers (issue 26): provider-qualified --model names, trials of the
// pairs taking turns, and the per-provider limit on trials at once.
import { describe, expect, it } from 'vitest';
import { parseModels } from '../../src/run/config.js';
import { planTrials, type RunnableTask, type TrialSpec } from '../../src/run/plan.js';
import { takeNext } from '../../src/run/runner.js';

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

  it('starts no trial of a provider at its limit, and the next one of another provider instead', () => {
    const spec = (provider: string, n: number) =>
      ({ provider, key: `${provider}${n}` }) as TrialSpec;
    const pending = [spec('local', 1), spec('local', 2), spec('hosted', 1)];
    const running = new Map([['local', 1]]);
    const limits = new Map([['local', 1]]);
    expect(takeNext(pending, running, limits)?.key).toBe('hosted1');
    expect(takeNext(pending, running, limits)).toBeUndefined();
    expect(pending.map((s) => s.key)).toEqual(['local1', 'local2']);
    running.set('local', 0);
    expect(takeNext(pending, running, limits)?.key).toBe('local1');
    // No limit declared: only --concurrency bounds it.
    expect(takeNext([spec('other', 1)], new Map([['other', 50]]), limits)?.key).toBe('other1');
  });
});
