// A run session: load tasks, plan, record the run, execute, and return the stored trials.
// Both "nanobench run" and "nanobench demo" go through here.
import { randomBytes } from 'node:crypto';
import { createAgent } from '../agent/index.js';
import type { Agent } from '../agent/types.js';
import { startEndpoints } from '../provider/endpoints.js';
import type { RunRecord, Store, TrialRecord } from '../store/store.js';
import { type LoadedTask, loadDataset } from '../task/load.js';
import { UserError } from '../util/errors.js';
import type { RunConfig } from './config.js';
import type { RunPaths } from './paths.js';
import { planTrials, type TrialSpec } from './plan.js';
import { executePlan, type ProgressEvent } from './runner.js';

export interface SessionHooks {
  onPlan?: (run: RunRecord, pending: number) => void;
  onStart?: (spec: TrialSpec) => void;
  onProgress?: (e: ProgressEvent) => void;
  /** Use this agent instead of building one from the config (tests). */
  agent?: Agent;
}

export interface SessionResult {
  run: RunRecord;
  trials: TrialRecord[];
  interrupted: boolean;
}

export function loadTasks(config: RunConfig): LoadedTask[] {
  let tasks = config.datasets.flatMap((d) => loadDataset(d));
  if (config.taskIds?.length) {
    const unknown = config.taskIds.filter((id) => !tasks.some((t) => t.task.task_id === id));
    if (unknown.length)
      throw new UserError(
        'UNKNOWN_TASK',
        `--task: no task named ${unknown.join(', ')} in ${config.datasets.join(', ')}`,
      );
    tasks = tasks.filter((t) => config.taskIds!.includes(t.task.task_id));
  }
  return tasks;
}

export function newRunId(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}

export async function runSession(
  config: RunConfig,
  store: Store,
  paths: RunPaths,
  hooks: SessionHooks = {},
  resumeRun?: RunRecord,
): Promise<SessionResult> {
  const tasks = loadTasks(config);
  const agent = hooks.agent ?? (await createAgent(config));
  const agentInfo = (await agent.describe?.()) ?? {};
  const plan = planTrials(tasks, agent.name, config.models, config.modes, config.runs);
  if (plan.length === 0)
    throw new UserError('EMPTY_PLAN', 'nothing to run: every selected task is retired');
  // Everything that can fail on bad input happens before the run is recorded.
  const endpoints = await startEndpoints(
    config,
    config.models.some((m) => m.provider !== 'none'),
  );
  try {
    let run = resumeRun;
    if (!run) {
      const record: RunRecord = {
        id: newRunId(),
        created_at: new Date().toISOString(),
        finished_at: null,
        status: 'running',
        config: { ...config, agent_info: agentInfo },
        plan_size: plan.length,
      };
      store.createRun(record);
      run = record;
    }
    hooks.onPlan?.(run, plan.length - store.trialKeys(run.id).size);
    const result = await executePlan({
      store,
      plan,
      concurrency: config.concurrency,
      env: {
        runId: run.id,
        paths,
        agent,
        mirrorDir: config.mirror,
        keepWorkspaces: config.keepWorkspaces,
        endpointFor: endpoints.endpointFor,
      },
      onStart: hooks.onStart,
      onProgress: hooks.onProgress,
    });
    return {
      run: store.getRun(run.id)!,
      trials: store.trials(run.id),
      interrupted: result.interrupted,
    };
  } finally {
    await endpoints.close();
  }
}
