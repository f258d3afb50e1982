// Where the scripted model server gets derived behaviours from: each task is derived once, when
// the first trial (or the plan) needs it, from the task as loaded and NanoBench's clone of its
// repository. What is derived lives in this process's memory only: it reaches Nanocoder as the
// scripted server's replies and is never written where an agent could read it.
import type { Step } from '../provider/script-schema.js';
import type { LoadedTask } from '../task/load.js';
import type { ResolvedTask } from '../task/patches.js';
import { UserError } from '../util/errors.js';
import { sourceCloneFor } from '../workspace/resolve-tasks.js';
import { bareBehaviourSteps } from './bare-replies.js';
import { baseTree } from './base-tree.js';
import {
  type BehaviourName,
  behaviourSteps,
  type DerivedTask,
  derivedBehaviour,
  deriveTask,
} from './behaviours.js';
import type { Unbuildable } from './golden-edits.js';

export interface DerivedSource {
  /** Derive a task's behaviours (once; later calls share the first). */
  prepare(lt: LoadedTask<ResolvedTask>): Promise<DerivedTask>;
  /**
   * The replies of a derived model on a prepared task; undefined for a task never prepared.
   * `bare`: to the bare agent (a request offering no tools), in its text format.
   */
  steps(model: string, taskId: string, bare?: boolean): Promise<Step[] | Unbuildable | undefined>;
}

export interface DerivedSourceOptions {
  /** NanoBench's cache (the source clones live there). */
  cacheDir: string;
  mirrorDir?: string;
}

export function derivedSource(o: DerivedSourceOptions): DerivedSource {
  const byTask = new Map<string, { digest: string; derived: Promise<DerivedTask> }>();
  const prepare = (lt: LoadedTask<ResolvedTask>) => {
    const known = byTask.get(lt.task.task_id);
    if (known && known.digest === lt.digest) return known.derived;
    const derived = sourceCloneFor(lt, o).then((clone) =>
      deriveTask(lt.task, baseTree(clone, lt.task.base_commit)),
    );
    byTask.set(lt.task.task_id, { digest: lt.digest, derived });
    derived.catch(() => byTask.delete(lt.task.task_id)); // a failed derivation is tried again
    return derived;
  };
  return {
    prepare,
    steps: async (model, taskId, bare = false) => {
      const name = derivedBehaviour(model);
      const entry = byTask.get(taskId);
      if (!name || !entry) return undefined;
      const derived = await entry.derived;
      return bare ? bareBehaviourSteps(derived, name) : behaviourSteps(derived, name);
    },
  };
}

/** A derived model name that names no behaviour: refused before anything runs. */
export function checkDerivedModel(model: string, known: readonly BehaviourName[]): void {
  if (derivedBehaviour(model)) return;
  throw new UserError(
    'UNKNOWN_MODEL',
    `scripted model "${model}": no such derived behaviour; derived models are ${known.map((b) => `derived:${b}`).join(', ')}`,
  );
}
