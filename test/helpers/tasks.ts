// Tasks with their patches for tests: the example tasks are inline (hand-written fixtures), so
// they need no repository to be resolved.
import { type LoadedTask, loadDataset } from '../../src/task/load.js';
import { inlinePatches, type ResolvedTask } from '../../src/task/patches.js';

export function inline(lt: LoadedTask): LoadedTask<ResolvedTask> {
  const task = inlinePatches(lt.task);
  if (!task)
    throw new Error(`${lt.task.task_id} is a reference task; this test needs inline patches`);
  return { ...lt, task };
}

/** A dataset of inline tasks, resolved. */
export const loadInline = (path: string) => loadDataset(path).map(inline);
