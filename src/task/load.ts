// Loading tasks and datasets from disk. Errors name the file, the field and the fix.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { ZodIssue } from 'zod';
import { diskEscape } from '../util/contained-path.js';
import { UserError } from '../util/errors.js';
import { taskDigest } from './digest.js';
import { type HarborTask, harborDigest, harborTaskDirs, loadHarborTask } from './harbor.js';
import { findPlaceholders } from './placeholders.js';
import { type Task, TaskSchema } from './schema.js';

export interface LoadedTask<T extends Task | HarborTask = Task> {
  task: T;
  /** Absolute path of the task file. */
  file: string;
  /** Absolute path of the dataset directory the task came from (for its mirror/). */
  datasetDir: string;
  /** Content digest of the task as written (src/task/manifest.ts), taken before any patch is derived. */
  digest: string;
}

/** A task of either kind: schema v1 (a PR task) or a Harbor task directory. */
export type AnyLoadedTask = LoadedTask<Task> | LoadedTask<HarborTask>;

export const isHarborLoaded = (t: { task: unknown }): t is LoadedTask<HarborTask> =>
  (t.task as { kind?: unknown }).kind === 'harbor';

export function formatIssue(file: string, issue: ZodIssue): string {
  const field = issue.path.length ? issue.path.join('.') : '(top level)';
  let msg = issue.message;
  if (issue.code === 'unrecognized_keys')
    msg = `unknown field(s) ${issue.keys.map((k) => `"${k}"`).join(', ')}; remove them or check the spelling`;
  else if (issue.code === 'invalid_type' && issue.received === 'undefined')
    msg = `missing; expected ${issue.expected}`;
  else if (issue.code === 'invalid_type') msg = `expected ${issue.expected}, got ${issue.received}`;
  else if (issue.code === 'invalid_string' || issue.code === 'invalid_enum_value')
    msg = `${issue.message}`;
  return `${file}: field "${field}": ${msg}`;
}

export function parseTask(raw: unknown, file: string): Task {
  // Unfilled placeholders first: they say which field the curator still has to write.
  const todo = findPlaceholders(raw);
  const lines = todo.map(
    (p) => `${file}: field "${p.path}": placeholder not filled in: replace "${p.text}"`,
  );
  const r = TaskSchema.safeParse(raw);
  if (!r.success)
    for (const i of r.error.issues)
      if (!todo.some((p) => p.path === i.path.join('.'))) lines.push(formatIssue(file, i));
  if (lines.length) throw new UserError('INVALID_TASK', lines.join('\n'));
  return r.data!;
}

export function loadTaskFile(file: string, datasetDir?: string): LoadedTask {
  const abs = resolve(file);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch {
    throw new UserError('TASK_NOT_FOUND', `${abs}: cannot read the task file`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new UserError('INVALID_TASK', `${abs}: not valid JSON (${(e as Error).message})`);
  }
  const task = parseTask(raw, abs);
  const dir = datasetDir ?? datasetDirOf(abs);
  for (const field of ['dockerfile', 'context'] as const) environmentPath(task, abs, dir, field);
  return { task, file: abs, datasetDir: dir, digest: taskDigest(task) };
}

/**
 * A PR task's environment file (its Dockerfile or build context) on the disk, inside its dataset
 * directory with every symlink followed: a build context that leads elsewhere would send that
 * place into the image the agent runs in. Undefined when the task does not name one.
 */
export function environmentPath(
  task: Task,
  file: string,
  datasetDir: string,
  field: 'dockerfile' | 'context',
): string | undefined {
  const rel = task.environment?.[field];
  if (rel === undefined) return undefined;
  const why = diskEscape(datasetDir, rel, true);
  if (why)
    throw new UserError(
      'INVALID_TASK',
      `${file}: field "environment.${field}": "${rel}" ${why}; keep the environment inside the dataset directory ${datasetDir}`,
    );
  return resolve(datasetDir, rel);
}

/** The dataset a task file belongs to: the parent of its tasks/ directory, else its directory. */
export function datasetDirOf(file: string): string {
  const dir = dirname(resolve(file));
  return basename(dir) === 'tasks' ? dirname(dir) : dir;
}

/** The dataset manifest (src/task/manifest.ts), never a task even when it sits beside them. */
export const MANIFEST_FILE = 'dataset.json';

/**
 * A directory archive/<V>/ of a dataset whose manifest says version V is a released version
 * (src/task/archive.ts): it runs exactly as released or not at all. Every task must be the one
 * its manifest lists, with the same digest, and nothing else.
 */
export function verifyArchivedRelease(dir: string, tasks: LoadedTask[]): void {
  const manifestFile = join(dir, MANIFEST_FILE);
  if (basename(dirname(dir)) !== 'archive' || !existsSync(manifestFile)) return;
  let m: { version?: unknown; tasks?: { task_id: string; file: string; digest: string }[] };
  try {
    m = JSON.parse(readFileSync(manifestFile, 'utf8'));
  } catch {
    return; // not a release's manifest; loadManifest names the problem where one is read
  }
  if (m.version !== basename(dir) || !Array.isArray(m.tasks)) return;
  const fix =
    'an archived version is never edited: restore it from version control, or release a new version';
  const listed = new Map(m.tasks.map((t) => [t.task_id, t]));
  const problems: string[] = [];
  for (const t of tasks) {
    const entry = listed.get(t.task.task_id);
    if (!entry)
      problems.push(`${t.file}: task ${t.task.task_id} is not in the manifest of ${m.version}`);
    else if (entry.digest !== t.digest)
      problems.push(
        `${t.file}: task ${t.task.task_id} differs from the one released in ${m.version} (digest ${t.digest}, released ${entry.digest})`,
      );
  }
  for (const id of listed.keys())
    if (!tasks.some((t) => t.task.task_id === id))
      problems.push(`${manifestFile}: task ${id} of ${m.version} is missing from ${dir}/tasks`);
  if (problems.length) throw new UserError('ARCHIVE_MODIFIED', `${problems.join('\n')}\n${fix}`);
}

/**
 * A dataset of either kind: Harbor task directories (a task directory, or a directory of them),
 * else schema v1 (loadDataset).
 */
export function loadAnyDataset(path: string): AnyLoadedTask[] {
  const abs = resolve(path);
  const dirs = harborTaskDirs(abs);
  if (!dirs) return loadDataset(abs);
  return dirs.map((dir) => ({
    task: loadHarborTask(dir),
    file: join(dir, 'task.toml'),
    datasetDir: abs,
    digest: harborDigest(dir),
  }));
}

/** A dataset is a directory with tasks/*.json (or *.json directly), or a single task file. */
export function loadDataset(path: string): LoadedTask[] {
  const abs = resolve(path);
  if (!existsSync(abs))
    throw new UserError('DATASET_NOT_FOUND', `${abs}: no such dataset directory or task file`);
  if (statSync(abs).isFile()) return [loadTaskFile(abs)];
  const taskDir = existsSync(join(abs, 'tasks')) ? join(abs, 'tasks') : abs;
  const files = readdirSync(taskDir)
    .filter((f) => f.endsWith('.json') && f !== MANIFEST_FILE)
    .sort();
  if (files.length === 0)
    throw new UserError('DATASET_EMPTY', `${taskDir}: no task files (*.json) found`);
  const tasks = files.map((f) => loadTaskFile(join(taskDir, f), abs));
  verifyArchivedRelease(abs, tasks);
  const seen = new Map<string, string>();
  for (const t of tasks) {
    const prev = seen.get(t.task.task_id);
    if (prev)
      throw new UserError(
        'DUPLICATE_TASK',
        `${t.file}: task_id "${t.task.task_id}" is also used by ${prev}`,
      );
    seen.set(t.task.task_id, t.file);
  }
  return tasks;
}
