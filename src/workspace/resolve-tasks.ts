// Loaded tasks -> tasks with their patches. Inline tasks already have them; reference tasks get
// them derived from NanoBench's clone of their repository (fetched on first use, --mirror
// first), cached by what determines them, and checked against the recorded digests every time.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadedTask } from '../task/load.js';
import {
  checkDigests,
  derivePatches,
  inlinePatches,
  type ResolvedTask,
  type TaskPatches,
} from '../task/patches.js';
import type { Task } from '../task/schema.js';
import { InfraError } from '../util/errors.js';
import { ensureSourceClone, resolveSource } from './source.js';

export interface ResolveOptions {
  cacheDir: string;
  mirrorDir?: string;
  log?: (line: string) => void;
  signal?: AbortSignal;
}

/** The cache key: everything the derived text depends on. */
function patchCacheFile(cacheDir: string, task: Task): string {
  const key = JSON.stringify([
    task.repo,
    task.base_commit,
    task.pr_commit,
    task.test_paths ?? [],
    task.excluded_paths ?? [],
  ]);
  const h = createHash('sha256').update(key).digest('hex').slice(0, 24);
  return join(cacheDir, 'patches', `${task.task_id.replace(/[^A-Za-z0-9._-]/g, '_')}-${h}.json`);
}

function readCached(file: string): TaskPatches | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const p = JSON.parse(readFileSync(file, 'utf8')) as TaskPatches;
    return typeof p.ground_truth_patch === 'string' && typeof p.test_patch === 'string'
      ? p
      : undefined;
  } catch {
    return undefined; // a torn write is simply derived again
  }
}

/** The bare clone holding the task's base and PR commits (cloned or refreshed when needed). */
export function sourceCloneFor(lt: LoadedTask, o: ResolveOptions): Promise<string> {
  const commits = [lt.task.base_commit, ...(lt.task.pr_commit ? [lt.task.pr_commit] : [])];
  return ensureSourceClone(o.cacheDir, lt.task.repo, resolveSource(lt, o.mirrorDir), {
    commits,
    log: o.log,
    signal: o.signal,
  });
}

export async function resolveTask(
  lt: LoadedTask,
  o: ResolveOptions,
): Promise<LoadedTask<ResolvedTask>> {
  const inline = inlinePatches(lt.task);
  if (inline) return { ...lt, task: inline };
  const cacheFile = patchCacheFile(o.cacheDir, lt.task);
  let patches = readCached(cacheFile);
  if (patches) checkDigests(lt.task, patches, lt.file);
  else {
    const clone = await sourceCloneFor(lt, o).catch((e: unknown) => {
      // Say which task needed the repository (a dataset has many).
      if (e instanceof InfraError && e.stage === 'source')
        throw new InfraError('source', `task ${lt.task.task_id} (${lt.file}): ${e.message}`);
      throw e;
    });
    patches = derivePatches(clone, lt.task, lt.file);
    mkdirSync(join(o.cacheDir, 'patches'), { recursive: true });
    const tmp = `${cacheFile}.tmp-${process.pid}`;
    writeFileSync(tmp, JSON.stringify(patches));
    renameSync(tmp, cacheFile);
  }
  return { ...lt, task: { ...lt.task, ...patches } };
}

/** Every task resolved, one repository at a time (each is cloned once). */
export async function resolveTasks(
  tasks: LoadedTask[],
  o: ResolveOptions,
): Promise<LoadedTask<ResolvedTask>[]> {
  const out: LoadedTask<ResolvedTask>[] = [];
  for (const lt of tasks) out.push(await resolveTask(lt, o));
  return out;
}
