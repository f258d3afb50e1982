// Task metadata as reports read it: the run's own snapshot (src/run/task-meta.ts) or, for runs
// recorded before snapshots existed, the datasets re-read from disk, saying so.

import { readRunConfig } from '../run/stored-config.js';
import {
  TASK_META_KEY,
  type TaskMeta,
  type TaskMetaMap,
  taskMetaSnapshot,
} from '../run/task-meta.js';
import type { LoadedTask } from '../task/load.js';
import { loadDataset } from '../task/load.js';

export {
  TASK_META_KEY,
  type TaskMeta,
  type TaskMetaMap,
  taskMetaSnapshot,
} from '../run/task-meta.js';

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
  const { datasets, runs } = readRunConfig({ config });
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
