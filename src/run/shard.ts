// Shards: a deterministic slice of a plan, so N machines can split a run without a queue.
// A trial belongs to a shard by a hash of its key (task id, agent, model, mode, attempt: no
// paths, no positions), so adding or retiring a task never moves the other trials between
// shards, and every machine computes the same slices from the same plan.
import { createHash } from 'node:crypto';
import { UserError } from '../util/errors.js';
import type { TrialSpec } from './plan.js';

export interface Shard {
  /** 1-based. */
  index: number;
  count: number;
}

export function parseShard(value: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(value.trim());
  const index = m ? Number(m[1]) : Number.NaN;
  const count = m ? Number(m[2]) : Number.NaN;
  if (!m || count < 1 || index < 1 || index > count)
    throw new UserError(
      'BAD_OPTION',
      `--shard must be I/N with 1 <= I <= N (e.g. 2/4), got "${value}"`,
    );
  return { index, count };
}

/** Which shard (1-based) of `count` a trial key falls in. */
export function shardOf(trialKey: string, count: number): number {
  const h = createHash('sha256').update(trialKey).digest();
  return Number(h.readBigUInt64BE(0) % BigInt(count)) + 1;
}

export function shardPlan(plan: TrialSpec[], shard: Shard): TrialSpec[] {
  return plan.filter((t) => shardOf(t.key, shard.count) === shard.index);
}

/**
 * Content digest of each task (what the plan is made of). Stored with a run so `merge` can tell
 * whether shards ran the same tasks even when the dataset lived at different paths.
 */
export function taskDigests(
  tasks: { task: { task_id: string }; digest: string }[],
): Record<string, string> {
  return Object.fromEntries(
    tasks.map((t) => [t.task.task_id, t.digest]).sort((a, b) => a[0].localeCompare(b[0])),
  );
}
