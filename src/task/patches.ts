// A task's two patches. Hand-written tasks hold them inline; tasks of real repositories hold a
// reference instead (pr_commit, test_paths, excluded_paths, patch_digests), so the dataset carries
// no upstream code: the patches are the diff base_commit..pr_commit, split by test_paths, derived
// from the repository when the task is loaded and refused when they differ from the digests
// recorded at import (a rewritten upstream history must never silently change a task).
import { createHash } from 'node:crypto';
import { UserError } from '../util/errors.js';
import { git, tryGit } from '../util/git.js';
import type { Task } from './schema.js';

export interface TaskPatches {
  ground_truth_patch: string;
  test_patch: string;
}

/** A task whose patches are present: what trials, gates and agents work with. */
export type ResolvedTask = Task & TaskPatches;

/**
 * Options of every diff NanoBench derives. `--full-index` because abbreviated object names
 * depend on how many objects a clone holds, which would change the digest from one clone to the
 * next; no renames, textconv or external diff, so the text depends on the two trees only.
 */
export const PATCH_DIFF_ARGS = [
  'diff',
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--no-renames',
  '--binary',
  '--full-index',
  '--diff-algorithm=myers',
  '--src-prefix=a/',
  '--dst-prefix=b/',
];

export function patchDigest(patch: string): string {
  return `sha256:${createHash('sha256').update(patch).digest('hex')}`;
}

export function isReferenceTask(task: Task): boolean {
  return task.ground_truth_patch === undefined;
}

/** The inline task as a resolved one (its patches are in the file). */
export function inlinePatches(task: Task): ResolvedTask | undefined {
  if (task.ground_truth_patch === undefined || task.test_patch === undefined) return undefined;
  return task as ResolvedTask;
}

/** Paths changed between two commits, in git's order. */
export function changedPaths(gitDir: string, from: string, to: string): string[] {
  return git(gitDir, ['diff', '--name-only', '-z', '--no-renames', from, to, '--'])
    .split('\0')
    .filter(Boolean);
}

export function diffPaths(gitDir: string, from: string, to: string, paths: string[]): string {
  if (paths.length === 0) return '';
  return git(gitDir, [...PATCH_DIFF_ARGS, from, to, '--', ...paths.map((p) => `:(literal)${p}`)]);
}

/** The split of a PR's changed paths: tests, excluded, and the rest (the golden patch). */
export function splitChanged(
  changed: string[],
  testPaths: string[],
  excluded: string[],
): { golden: string[]; tests: string[] } {
  const tests = new Set(testPaths);
  const skip = new Set(excluded);
  return {
    golden: changed.filter((p) => !tests.has(p) && !skip.has(p)),
    tests: changed.filter((p) => tests.has(p)),
  };
}

/**
 * Derive a reference task's patches from a git directory holding base_commit and pr_commit, and
 * check them against the recorded digests. Throws a UserError naming the task on any mismatch.
 */
export function derivePatches(gitDir: string, task: Task, file: string): TaskPatches {
  const pr = task.pr_commit!;
  const where = `task ${task.task_id} (${file})`;
  for (const [what, sha] of [
    ['base_commit', task.base_commit],
    ['pr_commit', pr],
  ])
    if (tryGit(gitDir, ['cat-file', '-e', `${sha}^{commit}`]) === undefined)
      throw new UserError(
        'COMMIT_MISSING',
        `${where}: ${what} ${sha} is not in the repository ${task.repo}: its history was rewritten, or the source is another repository; retire the task or re-import it from the PR's current commit`,
      );
  const changed = changedPaths(gitDir, task.base_commit, pr);
  const testPaths = task.test_paths ?? [];
  const excluded = task.excluded_paths ?? [];
  const unknown = [...testPaths, ...excluded].filter((p) => !changed.includes(p));
  if (unknown.length)
    throw new UserError(
      'PATCH_MISMATCH',
      `${where}: ${unknown.join(', ')} listed in test_paths/excluded_paths but not changed by ${pr.slice(0, 12)}; check the task against the PR`,
    );
  const split = splitChanged(changed, testPaths, excluded);
  const patches = {
    ground_truth_patch: diffPaths(gitDir, task.base_commit, pr, split.golden),
    test_patch: diffPaths(gitDir, task.base_commit, pr, split.tests),
  };
  checkDigests(task, patches, file);
  return patches;
}

/** Refuse patches that are not the ones recorded at import. */
export function checkDigests(task: Task, patches: TaskPatches, file: string): void {
  const recorded = task.patch_digests;
  if (!recorded) return;
  for (const k of ['ground_truth_patch', 'test_patch'] as const) {
    const got = patchDigest(patches[k]);
    if (got !== recorded[k])
      throw new UserError(
        'PATCH_DIGEST_MISMATCH',
        `task ${task.task_id} (${file}): the ${k} derived from ${task.repo} ${task.base_commit.slice(0, 12)}..${task.pr_commit?.slice(0, 12)} has digest ${got}, but the task records ${recorded[k]}: the repository's history was rewritten or the task was edited by hand; retire the task or re-record it (nanobench task import --reference)`,
      );
  }
}
