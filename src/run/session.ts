// A run session: load tasks, plan, record the run, execute, and return the stored trials.
// Both "nanobench run" and "nanobench demo" go through here.

import { existsSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { agentNames, agentsWaitOn } from '../agent/agents.js';
import { createAgent } from '../agent/index.js';
import type { Agent } from '../agent/types.js';
import { providerConcurrency } from '../provider/providers-config.js';
import { SCORING_RULES_VERSION } from '../score/rules.js';
import { newRunId } from '../store/run-id.js';
import type { RunRecord, Store, TrialRecord } from '../store/store.js';
import {
  type AnyLoadedTask,
  datasetDirOf,
  isHarborLoaded,
  type LoadedTask,
  loadAnyDataset,
} from '../task/load.js';
import { loadManifest, type Manifest } from '../task/manifest.js';
import type { RunPaths } from '../trial/paths.js';
import { UserError } from '../util/errors.js';
import { redactUrl } from '../util/redact-url.js';
import { NANOBENCH_VERSION } from '../util/version.js';
import { resolveTasks } from '../workspace/resolve-tasks.js';
import type { RunConfig } from './config.js';
import { acquireRunLease, type LeaseHandle } from './lease.js';
import { endLeftovers } from './leftovers.js';
import {
  planTrials,
  type RunnableTask,
  runnableStates,
  runsForTask,
  type TrialSpec,
} from './plan.js';
import { checkChangedTasks, forgetRetried, type ResumeOptions } from './resume.js';
import { executePlan, type ProgressEvent, type TrialExecutor } from './runner.js';
import { shardPlan, taskDigests } from './shard.js';
import { runSlots, type SlotCounts, type Slots } from './slots.js';
import {
  type DatasetVersion,
  RUN_CONFIG_VERSION,
  readRunConfig,
  type StoredRunConfig,
  storedRunConfig,
} from './stored-config.js';
import { taskMetaSnapshot } from './task-meta.js';
import { type RunWiring, wireRun } from './wiring.js';

// Resume policy lives in resume.ts; these two were exported from here and still are.
export { parseErrorCauses, type ResumeOptions } from './resume.js';

export interface SessionHooks {
  onPlan?: (run: RunRecord, pending: number) => void;
  onStart?: (spec: TrialSpec) => void;
  onProgress?: (e: ProgressEvent) => void;
  /** The agent and verify pools changed (progress lines). */
  onSlots?: (c: SlotCounts) => void;
  /** Use this agent instead of building one from the config (tests). */
  agent?: Agent;
  /** Diagnostics (e.g. queue trouble), for stderr. */
  log?: (line: string) => void;
  /** The demo: --sandbox auto may fall back for scripted models (WiringOptions). */
  scriptedFallback?: boolean;
  /** Plan only the trials this keeps (selftest: the behaviours that can be built per task). */
  keepTrial?: (spec: TrialSpec) => boolean;
  /** Who runs the trials when not this process's local pool (a queue of workers). */
  executorFor?: (o: {
    runId: string;
    config: RunConfig;
    paths: RunPaths;
    log?: (line: string) => void;
  }) => Promise<TrialExecutor>;
}

export interface SessionResult {
  run: RunRecord;
  trials: TrialRecord[];
  interrupted: boolean;
  /** Another process took the run over while this one ran it (this one stopped). */
  lostTo?: string;
}

/**
 * The tasks of the run's datasets. A task file named twice (`run examples examples/tasks/x.json`)
 * runs once, with a note; two different files with one task_id are refused: one would be lost.
 */
export function loadTasks(config: RunConfig, log?: (line: string) => void): AnyLoadedTask[] {
  const byId = new Map<string, AnyLoadedTask>();
  for (const t of config.datasets.flatMap((d) => loadAnyDataset(d))) {
    const prev = byId.get(t.task.task_id);
    if (!prev) byId.set(t.task.task_id, t);
    else if (realpathSync(prev.file) === realpathSync(t.file))
      log?.(`${t.file}: named twice; its task ${t.task.task_id} runs once`);
    else
      throw new UserError(
        'DUPLICATE_TASK',
        `task_id "${t.task.task_id}" is used by two files: ${prev.file} and ${t.file}; run one of them, or give one another task_id`,
      );
  }
  let tasks = [...byId.values()];
  if (config.taskIds?.length) {
    const unknown = config.taskIds.filter((id) => !tasks.some((t) => t.task.task_id === id));
    if (unknown.length)
      throw new UserError(
        'UNKNOWN_TASK',
        `--task: no task named ${unknown.join(', ')} in ${config.datasets.join(', ')}`,
      );
    tasks = tasks.filter((t) => config.taskIds!.includes(t.task.task_id));
    const calibrating = tasks.filter((t) => t.task.status.state === 'calibrating');
    if (calibrating.length && !config.calibrating)
      throw new UserError(
        'TASK_CALIBRATING',
        `--task: ${calibrating.map((t) => t.task.task_id).join(', ')} ${calibrating.length === 1 ? 'is' : 'are'} still calibrating (not part of a release); add --calibrating to run ${calibrating.length === 1 ? 'it' : 'them'}`,
      );
  }
  return tasks;
}

/** The version of each dataset a run names, as its manifest says (for compare). */
export function datasetVersions(datasets: string[]): DatasetVersion[] {
  return datasets.map((path) => {
    const dir = existsSync(path) && statSync(path).isFile() ? datasetDirOf(path) : path;
    let m: Manifest | undefined;
    try {
      m = loadManifest(dir);
    } catch {
      m = undefined; // a broken manifest does not stop a run of its task files; no version then
    }
    return {
      path,
      name: m?.name ?? basename(dir),
      version: m?.version ?? null,
      digest: m?.digest ?? null,
      archived: basename(dirname(dir)) === 'archive' && m?.version === basename(dir),
    };
  });
}

/** The most trials one run may plan; a plan past it is refused before anything runs. */
export const MAX_PLAN_TRIALS = 100_000;

const count = (n: number, what: string) =>
  `${n.toLocaleString('en-US')} ${what}${n === 1 ? '' : 's'}`;

/** Sized before planning: a plan of 1e9 trials would exhaust memory while being built. */
export function checkPlanSize(loaded: AnyLoadedTask[], config: RunConfig): void {
  const states = runnableStates(config.calibrating);
  const active = loaded.filter((t) => states.includes(t.task.status.state));
  const cells = config.models.length * config.modes.length * agentNames(config.agent).length;
  const runs = active.reduce((n, t) => n + (config.runs ?? runsForTask(t.task)), 0);
  const trials = runs * cells;
  if (trials <= MAX_PLAN_TRIALS) return;
  const perTask = config.runs !== undefined ? count(config.runs, 'run') : 'runs by tier';
  throw new UserError(
    'PLAN_TOO_BIG',
    `the plan would have ${count(trials, 'trial')} (${count(active.length, 'task')} × ${count(config.models.length, 'model')} × ${count(config.modes.length, 'mode')} × ${perTask}); at most ${MAX_PLAN_TRIALS.toLocaleString('en-US')} in one run: select fewer tasks (--task), models, modes or --runs`,
  );
}

/** The local pool's slots (none for a queue: its workers run the trials). */
function sessionSlots(config: RunConfig, hooks: SessionHooks): Slots | undefined {
  if (config.queue) return undefined;
  const o = {
    concurrency: config.concurrency,
    agentWaitsOn: agentsWaitOn(config.agent),
    providerLimits: providerConcurrency(config.providersConfig),
  };
  return runSlots(o, hooks.onSlots);
}

/** A provider's 429: fewer of its requests at once for a while, said on stderr. */
function slowDown(slots: Slots, provider: string, ms: number, log?: (line: string) => void) {
  const s = slots.rateLimited(provider, ms);
  log?.(
    `provider ${provider} answered 429 (retry after ${Math.round(ms / 1000)} s): ${s.size} of its requests at once for ${Math.ceil(s.forMs / 1000)} s`,
  );
}

/**
 * One run, in phases: the tasks loaded and resolved, the plan, the lease (a resume checks its
 * tasks and takes the lease before touching anything), the wiring and the provider preflight,
 * the run recorded, the plan executed, and everything closed whatever happened.
 */
export async function runSession(
  config: RunConfig,
  store: Store,
  paths: RunPaths,
  hooks: SessionHooks = {},
  resume?: ResumeOptions,
): Promise<SessionResult> {
  const loaded = loadTasks(config, hooks.log);
  checkPlanSize(loaded, config);
  const agent = hooks.agent ?? (await createAgent(config));
  const tasks = await runnableTasks(loaded, config, paths, hooks.log);
  const agentInfo = (await agent.describe?.()) ?? {};
  const { fullPlan, plan } = planSession(loaded, tasks, agent.name, config, hooks.keepTrial);
  const lease = sessionLease(store, resume?.takeOver, hooks.log);
  if (resume) {
    checkChangedTasks(resume, tasks, hooks.log);
    // Held from here on: nothing below may touch what another holder could be using.
    lease.acquire(resume.run.id);
  }
  let wiring: RunWiring | undefined;
  let executor: TrialExecutor | undefined;
  try {
    if (resume) {
      const swept = await endLeftovers(paths, resume.run.id);
      if (swept) hooks.log?.(swept);
    }
    // Everything that can fail on bad input happens before the run is recorded.
    const slots = sessionSlots(config, hooks);
    wiring = await wireRun(config, {
      onRateLimit: slots && ((provider, ms) => slowDown(slots, provider, ms, hooks.log)),
      agent,
      plan,
      log: hooks.log,
      scriptedFallback: hooks.scriptedFallback,
      cacheDir: paths.cacheDir,
      protectedPaths: [paths.root, paths.cacheDir, ...new Set(tasks.map((t) => t.datasetDir))],
    });
    const { sandbox, endpoints } = wiring;
    // A refused key, account or model stops the run here, before anything is recorded.
    await endpoints.preflight(hooks.log);
    const run =
      resume?.run ??
      newRun(storedConfig(config, { agentInfo, sandbox, tasks, fullPlan }), plan.length);
    // Connecting a remote executor (a queue) is part of checking the input, so it happens
    // before the run is recorded.
    executor = await hooks.executorFor?.({
      runId: run.id,
      config: readRunConfig(run),
      paths,
      log: hooks.log,
    });
    if (!resume) {
      store.createRun(run);
      lease.acquire(run.id);
    }
    if (resume?.retryErrors) forgetRetried(store, run.id, resume.retryErrors, hooks.log);
    hooks.onPlan?.(run, plan.length - store.trialKeys(run.id).size);
    const result = await executePlan({
      store,
      plan,
      concurrency: config.concurrency,
      slots,
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
        provision: config.provision,
      },
      onStart: hooks.onStart,
      onProgress: hooks.onProgress,
      signal: lease.signal,
    });
    const lostTo = lease.lostTo();
    return {
      run: store.getRun(run.id)!,
      trials: store.trials(run.id),
      interrupted: result.interrupted,
      ...(lostTo && { lostTo }),
    };
  } finally {
    lease.release();
    await executor?.close?.();
    await wiring?.endpoints.close();
  }
}

/**
 * The tasks a run plans, in the dataset's order: patches of reference tasks come from their
 * repositories (cloned on first use); Harbor tasks carry no patches to resolve. Retired tasks
 * (and calibrating ones, unless asked for) are never planned, so their repositories are not
 * needed.
 */
async function runnableTasks(
  loaded: AnyLoadedTask[],
  config: RunConfig,
  paths: RunPaths,
  log?: (line: string) => void,
): Promise<RunnableTask[]> {
  const states = runnableStates(config.calibrating);
  const active = loaded.filter((t) => states.includes(t.task.status.state));
  const resolved = await resolveTasks(
    active.filter((t): t is LoadedTask => !isHarborLoaded(t)),
    { cacheDir: paths.cacheDir, mirrorDir: config.mirror, log },
  );
  return active.map((t) =>
    isHarborLoaded(t) ? t : resolved.find((r) => r.task.task_id === t.task.task_id)!,
  );
}

/** The whole plan and this process's part of it (a shard); an empty whole plan is refused. */
function planSession(
  loaded: AnyLoadedTask[],
  tasks: RunnableTask[],
  agentName: string,
  config: RunConfig,
  keepTrial: SessionHooks['keepTrial'],
): { fullPlan: TrialSpec[]; plan: TrialSpec[] } {
  const states = runnableStates(config.calibrating);
  const planned = planTrials(
    tasks,
    agentNames(agentName),
    config.models,
    config.modes,
    config.runs,
    states,
  );
  const fullPlan = keepTrial ? planned.filter(keepTrial) : planned;
  if (fullPlan.length === 0)
    throw new UserError(
      'EMPTY_PLAN',
      loaded.some((t) => t.task.status.state === 'calibrating') && !config.calibrating
        ? 'nothing to run: every selected task is retired or still calibrating (add --calibrating to run those)'
        : 'nothing to run: every selected task is retired',
    );
  // A shard may be empty (more shards than trials): it is still recorded, so merge sees it.
  return { fullPlan, plan: config.shard ? shardPlan(fullPlan, config.shard) : fullPlan };
}

/**
 * The run's lease once acquired, and what losing it does: another process that takes the run
 * over aborts `signal` (trials in flight are not stored) and is named by `lostTo`.
 */
function sessionLease(store: Store, takeOver: boolean | undefined, log?: (line: string) => void) {
  let lease: LeaseHandle | undefined;
  let lostTo: string | undefined;
  const lost = new AbortController();
  const leaseHooks = {
    takeOver,
    onLost: (by: { holder: string } | undefined) => {
      lostTo = by?.holder ?? 'another process';
      log?.(`run taken over by ${lostTo}; stopping (trials in flight are not stored)`);
      lost.abort();
    },
  };
  return {
    signal: lost.signal,
    lostTo: () => lostTo,
    acquire: (runId: string) => {
      lease = acquireRunLease(store, runId, leaseHooks);
    },
    release: () => lease?.release(),
  };
}

/** What the user asked for plus the facts of this start, as stored with a new run. */
function storedConfig(
  config: RunConfig,
  facts: {
    agentInfo: Record<string, unknown>;
    sandbox: RunWiring['sandbox'];
    tasks: RunnableTask[];
    fullPlan: TrialSpec[];
  },
): StoredRunConfig {
  const { sandbox, fullPlan } = facts;
  return {
    ...config,
    config_version: RUN_CONFIG_VERSION,
    nanobench_version: NANOBENCH_VERSION,
    // Which scoring rules: compare warns when two runs differ.
    scoring_rules_version: SCORING_RULES_VERSION,
    ...(config.queue && { queue: redactUrl(config.queue) }),
    agent_info: facts.agentInfo,
    sandbox_used: sandbox.kind,
    ...(sandbox.note && { sandbox_note: sandbox.note }),
    task_digests: taskDigests(facts.tasks),
    dataset_versions: datasetVersions(config.datasets),
    ...(config.shard && { full_plan_size: fullPlan.length }),
    // Reports read task metadata from here, not from a dataset that may have moved.
    task_meta: taskMetaSnapshot([...new Set(fullPlan.map((s) => s.task))], config.runs),
  };
}

/** A new run's record, not yet stored. */
function newRun(stored: StoredRunConfig, planSize: number): RunRecord {
  return {
    id: newRunId(),
    created_at: new Date().toISOString(),
    finished_at: null,
    status: 'running',
    config: storedRunConfig(stored),
    plan_size: planSize,
  };
}
