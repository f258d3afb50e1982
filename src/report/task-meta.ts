// Task metadata for reports (tier, languages, domain, reasoning category, token estimate,
// merged_at). Trials do not carry it, so a run stores a small snapshot in its config when it
// starts; reports then never depend on the dataset still being on disk. Runs recorded before the
// snapshot existed fall back to re-reading their datasets, and say so.

import { type EvidenceStatus, evidenceStatus } from '../gates/evidence.js';
import { runsForTier } from '../run/plan.js';
import type { LoadedTask } from '../task/load.js';
import { loadDataset } from '../task/load.js';

export interface TaskMeta {
  tier: number;
  languages: string[];
  domain: string;
  reasoning_category: string;
  token_estimate: number;
  merged_at: string;
  /** Runs planned per (model, mode) for this task. */
  runs: number;
  /** Gate evidence for the task's content when the run started (absent in older runs). */
  evidence?: EvidenceStatus;
}

export type TaskMetaMap = Record<string, TaskMeta>;

/** The key under which a run's config holds the snapshot. */
export const TASK_META_KEY = 'task_meta';

export function taskMetaSnapshot(tasks: LoadedTask[], runsOverride?: number): TaskMetaMap {
  const out: TaskMetaMap = {};
  for (const lt of tasks) {
    const t = lt.task;
    out[t.task_id] = {
      tier: t.complexity_tier,
      languages: t.languages,
      domain: t.domain,
      reasoning_category: t.reasoning_category,
      token_estimate: t.token_estimate,
      merged_at: t.merged_at,
      runs: runsOverride ?? runsForTier(t.complexity_tier),
      evidence: evidenceStatus(lt),
    };
  }
  return out;
}

export interface ResolvedTaskMeta {
  source: 'snapshot' | 'dataset' | 'unavailable';
  tasks: TaskMetaMap;
  /** Said in the report when the metadata is not the run's own snapshot. */
  note: string | null;
}

function isMetaMap(x: unknown): x is TaskMetaMap {
  return (
    typeof x === 'object' &&
    x !== null &&
    Object.values(x).every(
      (m) => typeof m === 'object' && m !== null && typeof (m as TaskMeta).tier === 'number',
    )
  );
}

export function resolveTaskMeta(config: Record<string, unknown>): ResolvedTaskMeta {
  const snap = config[TASK_META_KEY];
  if (isMetaMap(snap)) return { source: 'snapshot', tasks: snap, note: null };
  const datasets = Array.isArray(config.datasets) ? (config.datasets as string[]) : [];
  const runs = typeof config.runs === 'number' ? config.runs : undefined;
  const loaded: LoadedTask[] = [];
  const missing: string[] = [];
  for (const d of datasets) {
    try {
      loaded.push(...loadDataset(d));
    } catch {
      missing.push(d);
    }
  }
  if (loaded.length === 0)
    return {
      source: 'unavailable',
      tasks: {},
      note: `task metadata unavailable: the run has no snapshot and its dataset${datasets.length === 1 ? ' is' : 's are'} no longer readable at ${datasets.join(', ') || '(none recorded)'}; breakdowns by category, language, domain and token density, and contamination marks, are omitted`,
    };
  return {
    source: 'dataset',
    tasks: taskMetaSnapshot(loaded, runs),
    note: `task metadata re-read from the dataset on disk (the run predates snapshots; the files may have changed since)${missing.length ? `; not found: ${missing.join(', ')}` : ''}`,
  };
}
