// Put the tests back the way the PR has them, whatever the agent did to them: every test path
// returns to its baseline content (agent-added files under it are removed), then test_patch is
// applied. The agent can never earn reward by editing tests.
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import { patchPaths } from '../task/patch-paths.js';
import type { ResolvedTask } from '../task/patches.js';
import { containedPath, pathEscape } from '../util/contained-path.js';
import { InfraError } from '../util/errors.js';
import { gitAsync } from '../util/git.js';

export { patchPaths };

const badTestPath = (p: string, why: string) =>
  new InfraError('verify', `test path "${p}" ${why}: it is not removed`, 'bad_test_path');

export function protectedTestPaths(task: ResolvedTask): string[] {
  const all = new Set<string>(patchPaths(task.test_patch));
  for (const s of task.test_suites) for (const p of s.test_files) all.add(p);
  return [...all].map((p) => {
    const why = pathEscape(p, 'the workspace');
    if (why) throw badTestPath(p, why);
    return normalize(p).replace(/\/$/, '');
  });
}

/** ws/p for removing: refused when a symlink on the way (the repository's own) leads outside. */
export const testPathIn = (ws: string, p: string) =>
  containedPath(ws, p, (why) => badTestPath(p, why));

/** Test paths that hold baseline files, by baseline tree and paths. */
const trackedPaths = new Map<string, string[]>();

export async function restoreTests(
  ws: string,
  baselineTree: string,
  task: ResolvedTask,
): Promise<string[]> {
  const paths = protectedTestPaths(task);
  for (const p of paths) await rm(testPathIn(ws, p), { recursive: true, force: true });
  // One git call for all of them: which hold baseline files (a tree never changes: asked once
  // per process), then one restore of those.
  const key = `${baselineTree}\0${paths.join('\0')}`;
  let restore = trackedPaths.get(key);
  if (!restore) {
    const tracked = paths.length
      ? (await gitAsync(ws, ['ls-tree', '-r', '-z', '--name-only', baselineTree, '--', ...paths]))
          .split('\0')
          .filter(Boolean)
      : [];
    restore = paths.filter((p) => tracked.some((f) => f === p || f.startsWith(`${p}/`)));
    if (trackedPaths.size > 256) trackedPaths.clear();
    trackedPaths.set(key, restore);
  }
  if (restore.length)
    await gitAsync(ws, ['restore', `--source=${baselineTree}`, '--worktree', '--', ...restore]);
  if (task.test_patch.trim()) {
    try {
      await gitAsync(ws, ['apply', '--whitespace=nowarn', '-'], { input: task.test_patch });
    } catch (e) {
      throw new InfraError(
        'verify',
        `test_patch does not apply: ${(e as Error).message.replace(/^git apply [^:]*: /, '')}`,
        'test_patch_failed',
      );
    }
  }
  return paths.filter((p) => existsSync(join(ws, p)));
}
