// Task metadata for reports (tier, languages, domain, reasoning category, token estimate,
// merged_at, gate evidence). Trials do not carry it, so a run stores a small snapshot in its
// config when it starts; reports then never depend on the dataset still being on disk.

import { contentDigest } from '../task/digest.js';
import { type EvidenceStatus, evidenceStatus } from '../task/evidence.js';
import { isHarborLoaded, type LoadedTask } from '../task/load.js';
import type { Task, TaskState } from '../task/schema.js';
import { type RunnableTask, runsForTier } from './plan.js';

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
  /** The files the fix touches (absent in older runs): the viewer marks them in the diff. */
  required_files?: string[];
  /** Lifecycle state when the run started (absent in older runs: active). */
  state?: TaskState;
  /** src/task/digest.ts contentDigest: what calibration attributes observations to. */
  content_digest?: string;
  /** Recorded saturation (active tasks kept although they no longer separate models). */
  saturated?: { pooled_rate: number; reason: string };
  /**
   * `harbor` for a Harbor task: no tier (0), no languages, no merge date or required files;
   * its domain is task.toml's metadata.category and its reasoning category metadata.difficulty.
   */
  kind?: 'harbor';
}

export type TaskMetaMap = Record<string, TaskMeta>;

/** The key under which a run's config holds the snapshot. */
export const TASK_META_KEY = 'task_meta';

export function taskMetaSnapshot(
  tasks: (LoadedTask | RunnableTask)[],
  runsOverride?: number,
): TaskMetaMap {
  const out: TaskMetaMap = {};
  for (const lt of tasks) {
    if (isHarborLoaded(lt)) {
      const t = lt.task;
      const meta = t.config.metadata as { category?: unknown; difficulty?: unknown };
      out[t.task_id] = {
        tier: 0,
        languages: [],
        domain: typeof meta.category === 'string' ? meta.category : 'harbor',
        reasoning_category: typeof meta.difficulty === 'string' ? meta.difficulty : 'harbor',
        token_estimate: Math.ceil(t.instruction.length / 4),
        merged_at: '',
        runs: runsOverride ?? 1,
        kind: 'harbor',
      };
      continue;
    }
    const t = lt.task as Task;
    out[t.task_id] = {
      tier: t.complexity_tier,
      languages: t.languages,
      domain: t.domain,
      reasoning_category: t.reasoning_category,
      token_estimate: t.token_estimate,
      merged_at: t.merged_at,
      runs: runsOverride ?? runsForTier(t.complexity_tier),
      evidence: evidenceStatus(lt as LoadedTask),
      required_files: t.required_files,
      state: t.status.state,
      content_digest: contentDigest(t),
      ...(t.status.saturated && {
        saturated: {
          pooled_rate: t.status.saturated.pooled_rate,
          reason: t.status.saturated.reason,
        },
      }),
    };
  }
  return out;
}
