// Planning: which trials a run consists of. Deterministic order, stable keys (resume and
// de-duplication depend on them).
import type { Mode } from '../agent/types.js';
import { type HarborTask, isHarborTask } from '../task/harbor.js';
import type { TaskState } from '../task/schema.js';

import type { RunnableTask, TrialSpec } from '../trial/spec.js';

export type { RunnableTask, TrialSpec };

export interface ModelRef {
  provider: string;
  model: string;
}

/**
 * The states a run plans: active tasks, and calibrating ones when asked (`run --calibrating`):
 * their trials are the observations calibration reads. Retired tasks never run.
 */
export function runnableStates(calibrating?: boolean): TaskState[] {
  return calibrating ? ['active', 'calibrating'] : ['active'];
}

/** Runs per task from its tier (whitepaper §8.5): tiers 1-2 one run, tiers 3-4 five. */
export function runsForTier(tier: number): number {
  return tier <= 2 ? 1 : 5;
}

/** Runs per task: by tier for PR tasks; Harbor tasks have no tier and run once. */
export function runsForTask(
  task: { kind?: string; complexity_tier?: number } | HarborTask,
): number {
  return isHarborTask(task)
    ? 1
    : runsForTier((task as { complexity_tier: number }).complexity_tier);
}

export function trialKey(t: Omit<TrialSpec, 'key' | 'task'> & { taskId: string }): string {
  return [t.taskId, t.agent, t.provider, t.model, t.mode, t.attempt].join('|');
}

/**
 * The plan: every task's runs, each run over the models and modes, and each of those cells once
 * per agent, the agents adjacent (several agents are paired: same task, model, mode and run).
 */
export function planTrials(
  tasks: RunnableTask[],
  agents: string | string[],
  models: ModelRef[],
  modes: Mode[],
  runsOverride?: number,
  states: TaskState[] = ['active'],
): TrialSpec[] {
  const plan: TrialSpec[] = [];
  for (const lt of tasks) {
    if (!states.includes(lt.task.status.state)) continue;
    const runs = runsOverride ?? runsForTask(lt.task);
    // Attempts outside models: the (provider, model) pairs take turns run by run, so drift of
    // a provider during the run (load, a rate limit) falls on every pair alike.
    for (let attempt = 1; attempt <= runs; attempt++)
      for (const m of models)
        for (const mode of modes)
          for (const agent of typeof agents === 'string' ? [agents] : agents) {
            const spec = {
              taskId: lt.task.task_id,
              agent,
              provider: m.provider,
              model: m.model,
              mode,
              attempt,
            };
            plan.push({
              key: trialKey(spec),
              task: lt,
              agent,
              provider: m.provider,
              model: m.model,
              mode,
              attempt,
            });
          }
  }
  return plan;
}

/**
 * The plan, longest expected trials first: by complexity tier, 4 to 1 (a higher tier changes more
 * files, and its agents take more turns), Harbor tasks (no tier) last. Stable: within a tier the
 * plan's order holds, so each task's runs still take turns across the (provider, model) pairs.
 * For agents that wait on a model the run ends when its last trials do; starting the long ones
 * first leaves short ones for the end, where they keep the agent slots busy instead of one long
 * trial holding the run (longest-processing-time-first, the classic makespan rule).
 */
export function longestFirst(plan: TrialSpec[]): TrialSpec[] {
  const tier = (s: TrialSpec) =>
    isHarborTask(s.task.task)
      ? 0
      : ((s.task.task as { complexity_tier?: number }).complexity_tier ?? 0);
  return plan
    .map((spec, i) => ({ spec, i, t: tier(spec) }))
    .sort((a, b) => b.t - a.t || a.i - b.i)
    .map((x) => x.spec);
}
