// Several agents in one run (issue 29): `--agent nanocoder,bare` plans both on the same cells,
// adjacent, and each trial runs the agent its spec names.
import { describe, expect, it } from 'vitest';
import { agentNames, agentsWaitOn } from '../../src/agent/agents.js';
import { severalAgents } from '../../src/agent/index.js';
import type { Agent, AgentContext } from '../../src/agent/types.js';
import { isLlmAgent, resolveRunConfig } from '../../src/run/config.js';
import { planTrials, type RunnableTask } from '../../src/run/plan.js';

const task = (id: string, tier: number) =>
  ({
    task: { task_id: id, complexity_tier: tier, status: { state: 'active' } },
  }) as unknown as RunnableTask;

describe('--agent with several agents', () => {
  it('splits the value, a command: taking the rest', () => {
    expect(agentNames('nanocoder,bare')).toEqual(['nanocoder', 'bare']);
    expect(agentNames('command:./a.sh x,y')).toEqual(['command:./a.sh x,y']);
    expect(agentNames('bare,command:echo a,b')).toEqual(['bare', 'command:echo a,b']);
    expect(agentsWaitOn('nanocoder,bare')).toBe('model');
    expect(agentsWaitOn('oracle')).toBe('cpu');
    expect(isLlmAgent('nanocoder,bare')).toBe(true);
  });

  it('accepts LLM agents together, refuses unknown, repeated or mixed ones', () => {
    const c = resolveRunConfig(['examples'], {
      agent: 'nanocoder,bare',
      model: ['competent'],
      concurrency: '2',
    });
    expect(c.agent).toBe('nanocoder,bare');
    expect(() => resolveRunConfig(['examples'], { agent: 'nanocoder,nope', model: ['m'] })).toThrow(
      '--agent must be',
    );
    expect(() => resolveRunConfig(['examples'], { agent: 'bare,bare', model: ['m'] })).toThrow(
      'names an agent twice',
    );
    expect(() => resolveRunConfig(['examples'], { agent: 'bare,oracle', model: ['m'] })).toThrow(
      'each must be an LLM agent',
    );
  });

  it('plans every agent on the same cells, side by side', () => {
    const plan = planTrials(
      [task('t1', 1)],
      ['nanocoder', 'bare'],
      [{ provider: 'scripted', model: 'm' }],
      ['hinted', 'navigation'],
    );
    expect(plan.map((s) => `${s.mode}:${s.agent}`)).toEqual([
      'hinted:nanocoder',
      'hinted:bare',
      'navigation:nanocoder',
      'navigation:bare',
    ]);
    expect(new Set(plan.map((s) => s.key)).size).toBe(4);
  });

  it('runs the agent the trial names', async () => {
    const fake = (name: string): Agent => ({
      name,
      run: async () => ({
        exitCode: 0,
        exitKind: 'success',
        stdout: name,
        stderr: '',
        durationMs: 0,
        timedOut: false,
      }),
      describe: async () => ({ [`${name}_version`]: 1 }),
    });
    const both = severalAgents([fake('nanocoder'), fake('bare')], 'nanocoder,bare');
    const ctx = { agent: 'bare' } as AgentContext;
    expect((await both.run(ctx)).stdout).toBe('bare');
    expect(await both.describe?.()).toEqual({ nanocoder_version: 1, bare_version: 1 });
    await expect(both.run({ ...ctx, agent: 'oracle' })).rejects.toThrow('no agent "oracle"');
  });
});
