// What travels through the queue. A job carries everything a worker needs to run one trial
// exactly as a local run would: the run's resolved configuration (agent, models, paths of the
// dataset, scripts and Nanocoder build, which workers are assumed to have at the same paths), the
// task itself and the trial's coordinates. The result carries the trial record and its artifact
// files. Nothing here imports bullmq, so the local path never loads it.
import { createHash } from 'node:crypto';
import type { Mode } from '../agent/types.js';
import type { RunConfig } from '../run/config.js';
import type { RunnableTask, TrialSpec } from '../run/plan.js';
import type { TrialRecord } from '../store/store.js';
import { type ErrorOutcome, emptyRecord } from '../trial/record.js';

/** One queue for every run: any worker can take any run's trials. */
export const QUEUE_NAME = 'nanobench-trials';
export const PROTOCOL_VERSION = 1;

export interface TrialJobData {
  protocol: number;
  runId: string;
  config: RunConfig;
  task: RunnableTask;
  spec: {
    key: string;
    agent: string;
    provider: string;
    model: string;
    mode: Mode;
    attempt: number;
  };
}

export interface TrialJobResult {
  record: TrialRecord;
  /** Artifact file name -> base64 content (capped; see ARTIFACT_LIMITS). */
  artifacts: Record<string, string>;
}

/** Same run + same trial -> same job id, so enqueueing twice (a resumed coordinator) is a no-op. */
export function jobId(runId: string, trialKey: string): string {
  // BullMQ rejects purely numeric custom ids; the prefix also makes them easy to spot in Redis.
  return `t-${createHash('sha256').update(`${runId}\0${trialKey}`).digest('hex').slice(0, 40)}`;
}

/**
 * What a worker needs of the run's configuration. Dropped: the queue URL (it may hold a password)
 * and the facts stored beside the configuration (agent facts, per-task digests and metadata, dataset versions),
 * which grow with the dataset and would otherwise be copied into every job.
 */
function shippedConfig(config: RunConfig): RunConfig {
  const {
    queue: _queue,
    agent_info: _info,
    task_digests: _digests,
    task_meta: _meta,
    dataset_versions: _versions,
    full_plan_size: _full,
    ...shipped
  } = config as RunConfig & Record<string, unknown>;
  return shipped as RunConfig;
}

export function jobData(runId: string, config: RunConfig, spec: TrialSpec): TrialJobData {
  const { task, ...coords } = spec;
  return { protocol: PROTOCOL_VERSION, runId, config: shippedConfig(config), task, spec: coords };
}

export function specOf(data: TrialJobData): TrialSpec {
  return { ...data.spec, task: data.task };
}

/** The record stored when a job failed for good (the worker itself broke, not the agent). */
export function failedRecord(runId: string, spec: TrialSpec, reason: string): TrialRecord {
  const outcome: ErrorOutcome = {
    status: 'error',
    score: null,
    label: null,
    confidence_level: null,
    error: `worker: ${reason}`,
    error_stage: 'internal',
    error_code: 'worker_failed',
  };
  return { ...emptyRecord(runId, spec, new Date().toISOString(), null), ...outcome };
}
