// A run session: load tasks, plan, record the run, execute, and return the stored trials.
// Both "nanobench run" and "nanobench demo" go through here.
import { randomBytes } from 'node:crypto';
import { createAgent } from '../agent/index.js';
import type { Agent } from '../agent/types.js';
import { startEndpoints } from '../provider/endpoints.js';
import { redactUrl } from '../queue/connection.js';
import { taskMetaSnapshot } from '../report/task-meta.js';
import type { RunRecord, Store, TrialRecord } from '../store/store.js';
import { type LoadedTask, loadDataset } from '../task/load.js';
import { UserError } from '../util/errors.js';
import { PACKAGE_ROOT } from '../util/package-root.js';
import { resolveTasks } from '../workspace/resolve-tasks.js';
import { selectSandbox } from '../workspace/sandbox/select.js';
import { isLlmAgent, type RunConfig } from './config.js';
import type { RunPaths } from './paths.js';
import { planTrials, type TrialSpec } from './plan.js';
import { executePlan, type ProgressEvent, type TrialExecutor } from './runner.js';
import { shardPlan, taskDigests } from './shard.js';

export interface SessionHooks {
  onPlan?: (run: RunRecord, pending: number) => void;
  onStart?: (spec: TrialSpec) => void;
  onProgress?: (e: ProgressEvent) => void;
  /** Use this agent instead of building one from the config (tests). */
  agent?: Agent;
  /** Diagnostics (e.g. queue trouble), for stderr. */
  log?: (line: string) => void;
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
  const loaded = loadTasks(config);
  const agent = hooks.agent ?? (await createAgent(config));
  // Patches of reference tasks come from their repositories (cloned on first use). Retired
  // tasks are never planned, so their repositories are not needed.
  const tasks = await resolveTasks(
    loaded.filter((t) => t.task.status.state === 'active'),
    { cacheDir: paths.cacheDir, mirrorDir: config.mirror, log: hooks.log },
  );
  const agentInfo = (await agent.describe?.()) ?? {};
  const fullPlan = planTrials(tasks, agent.name, config.models, config.modes, config.runs);
  if (fullPlan.length === 0)
    throw new UserError('EMPTY_PLAN', 'nothing to run: every selected task is retired');
  // A shard may be empty (more shards than trials): it is still recorded, so merge sees it.
  const plan = config.shard ? shardPlan(fullPlan, config.shard) : fullPlan;
  // Everything that can fail on bad input happens before the run is recorded.
  const sandbox = await selectSandbox(config.sandbox ?? 'auto', {
    protectedPaths: [
      PACKAGE_ROOT,
      paths.root,
      paths.cacheDir,
      ...new Set(tasks.map((t) => t.datasetDir)),
    ],
    warn: hooks.log,
    llmAgent: isLlmAgent(config.agent),
  });
  const endpoints = await startEndpoints(
    config,
    config.models.some((m) => m.provider !== 'none'),
    plan,
  );
  let executor: TrialExecutor | undefined;
  try {
    const run: RunRecord = resumeRun ?? {
      id: newRunId(),
      created_at: new Date().toISOString(),
      finished_at: null,
      status: 'running',
      config: {
        ...config,
        ...(config.queue && { queue: redactUrl(config.queue) }),
        agent_info: agentInfo,
        sandbox_used: sandbox.kind,
        ...(sandbox.note && { sandbox_note: sandbox.note }),
        task_digests: taskDigests(tasks),
        ...(config.shard && { full_plan_size: fullPlan.length }),
        // Reports read task metadata from here, not from a dataset that may have moved.
        task_meta: taskMetaSnapshot([...new Set(fullPlan.map((s) => s.task))], config.runs),
      },
      plan_size: plan.length,
    };
    if (config.queue) {
      // Loaded only here: a local run never needs bullmq or Redis. Connecting is part of
      // checking the input, so it happens before the run is recorded.
      const { createQueueExecutor } = await import('../queue/coordinator.js');
      executor = await createQueueExecutor({
        url: config.queue,
        runId: run.id,
        config: run.config as unknown as RunConfig,
        paths,
        log: hooks.log,
      });
    }
    if (!resumeRun) store.createRun(run);
    hooks.onPlan?.(run, plan.length - store.trialKeys(run.id).size);
    const result = await executePlan({
      store,
      plan,
      concurrency: config.concurrency,
      executor,
      env: {
        runId: run.id,
        paths,
        agent,
        mirrorDir: config.mirror,
        keepWorkspaces: config.keepWorkspaces,
        endpointFor: endpoints.endpointFor,
        sandbox,
        integrity: config.integrity,
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
    await executor?.close?.();
    await endpoints.close();
  }
}
