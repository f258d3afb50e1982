// The agent's change = the workspace now versus the baseline tree (base_commit + install
// output). This is ground truth for "files changed", whatever the agent reports.
import { git } from '../util/git.js';
import { snapshotTree } from './provision.js';

export interface WorkspaceDiff {
  tree: string;
  files: string[];
  patch: string;
}

export function workspaceDiff(ws: string, baselineTree: string): WorkspaceDiff {
  const tree = snapshotTree(ws);
  const names = git(ws, ['diff', '--name-only', '-z', '--no-renames', baselineTree, tree]);
  const files = names.split('\0').filter(Boolean).sort();
  const patch = git(ws, ['diff', '--binary', '--no-renames', baselineTree, tree]);
  return { tree, files, patch };
}

/** Lines added by a patch (without the leading "+"), for symbol lookups. */
export function addedLines(patch: string): string[] {
  return patch
    .split('\n')
    .filter((l) => l.startsWith('+') && !l.startsWith('+++'))
    .map((l) => l.slice(1));
}
