// The run configuration as stored with a run: what the user asked for (RunConfig) plus the facts
// recorded when it started. Versioned, so a reader knows what a run stored before a field
// existed lacks; readers go through readRunConfig, which fills those from RUN_DEFAULTS, instead
// of casting the stored JSON.
import type { RunRecord, StoredPlanFacts } from '../store/store.js';
import { RUN_DEFAULTS, type RunConfig, resolveConcurrency } from './config.js';
import type { TaskMetaMap } from './task-meta.js';

/**
 * 1: runs before this type (no config_version); 2: nanobench_version, sandbox and integrity always
 * present; 3: dataset_versions.
 */
export const RUN_CONFIG_VERSION = 3;

/** Which version of a dataset a run ran (from its manifest when it started). */
export interface DatasetVersion {
  path: string;
  name: string;
  /** null: the dataset has no manifest. */
  version: string | null;
  digest: string | null;
  /** A released version from the archive (DATASET@VERSION): its digests were verified. */
  archived: boolean;
}

export interface StoredRunConfig extends RunConfig {
  config_version: number;
  /** The NanoBench that ran it (absent before version 2). */
  nanobench_version?: string;
  /** The scoring rules it was graded by (src/score/rules.ts); absent: 1 or older. */
  scoring_rules_version?: number;
  /** Facts about the agent build (Nanocoder version, commit, path). */
  agent_info: Record<string, unknown>;
  /** The isolation this machine gave the agent (bwrap | none-as-nobody | none). */
  sandbox_used?: string;
  sandbox_note?: string;
  /** Content digest of each planned task (src/task/digest.ts). */
  task_digests: Record<string, string>;
  /** For shards: the size of the whole plan. */
  full_plan_size?: number;
  /** Task metadata for reports (src/run/task-meta.ts); absent in runs that predate it. */
  task_meta?: TaskMetaMap;
  /** The dataset versions the run ran (absent before config version 3). */
  dataset_versions?: DatasetVersion[];
}

/**
 * A stored run's configuration, typed: what a run stored before a field existed lacks is filled
 * from RUN_DEFAULTS. Takes anything with the stored JSON (a RunRecord, a compared run's side).
 */
export function readRunConfig(run: Pick<RunRecord, 'config'>): StoredRunConfig {
  const c = run.config as Partial<StoredRunConfig>;
  return {
    ...(c as StoredRunConfig),
    config_version: c.config_version ?? 1,
    agent: c.agent ?? RUN_DEFAULTS.agent,
    datasets: c.datasets ?? [],
    models: c.models ?? [],
    modes: c.modes ?? [RUN_DEFAULTS.mode],
    concurrency: c.concurrency ?? resolveConcurrency(RUN_DEFAULTS.concurrency),
    keepWorkspaces: c.keepWorkspaces ?? false,
    sandbox: c.sandbox ?? RUN_DEFAULTS.sandbox,
    integrity: c.integrity ?? RUN_DEFAULTS.integrity,
    provision: c.provision ?? RUN_DEFAULTS.provision,
    agent_info: c.agent_info ?? {},
    task_digests: c.task_digests ?? {},
  };
}

/**
 * The stored JSON of a new run's configuration (RunRecord.config): the one conversion from the
 * typed config, as readRunConfig is the one back. The store layer reads a few of its fields
 * itself (merge); the assignment below checks they keep the types it reads them as.
 */
export function storedRunConfig(config: StoredRunConfig): RunRecord['config'] {
  const facts: StoredPlanFacts = config;
  return facts as unknown as RunRecord['config'];
}
