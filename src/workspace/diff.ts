// The agent's change = the workspace now versus the baseline tree (base_commit + install
// output). This is ground truth for "files changed", whatever the agent reports.
//
// Without an overlay the workspace's tree is written from scratch (snapshotTree: every file not
// ignored is hashed again). With one, only the changed paths are looked at: the baseline tree is
// read into a temporary index and those paths alone are updated in it. The result is the same
// tree (test/workspace/changes.test.ts compares the two on every kind of change); when a
// .gitignore or .gitattributes changed, which can change how unchanged files count, or a nested
// repository is involved, the whole tree is written as before.
import { rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { InfraError } from '../util/errors.js';
import { walk } from '../util/fs-tree.js';
import { GIT_ENV, gitAsync } from '../util/git.js';
import { ExecError, execText } from '../util/process.js';
import { type ChangedPaths, listedStat } from './changes.js';
import { snapshotTree } from './provision.js';

export interface WorkspaceDiff {
  tree: string;
  files: string[];
  patch: string;
}

export async function workspaceDiff(
  ws: string,
  baselineTree: string,
  changed?: ChangedPaths,
): Promise<WorkspaceDiff> {
  const tree = (changed && (await treeFromChanges(ws, baselineTree, changed))) || snapshotTree(ws);
  if (tree === baselineTree) return { tree, files: [], patch: '' };
  const names = await gitAsync(ws, [
    'diff',
    '--name-only',
    '-z',
    '--no-renames',
    baselineTree,
    tree,
  ]);
  const files = names.split('\0').filter(Boolean).sort();
  const patch = await gitAsync(ws, ['diff', '--binary', '--no-renames', baselineTree, tree]);
  return { tree, files, patch };
}

const RULE_FILES = new Set(['.gitignore', '.gitattributes']);
const excluded = (rel: string) =>
  rel === '.git' ||
  rel.startsWith('.git/') ||
  rel === '.nanocoder' ||
  rel.startsWith('.nanocoder/');

const baselineFiles = new Map<string, string[]>();

/** Every path of the baseline tree (cached: a tree never changes). */
async function filesOf(ws: string, tree: string): Promise<string[]> {
  let files = baselineFiles.get(tree);
  if (!files) {
    files = (await gitAsync(ws, ['ls-tree', '-r', '-z', '--name-only', '--full-tree', tree]))
      .split('\0')
      .filter(Boolean);
    if (baselineFiles.size > 32) baselineFiles.clear();
    baselineFiles.set(tree, files);
  }
  return files;
}

/**
 * The workspace's tree as snapshotTree would write it, from the baseline tree and the changed
 * paths; undefined when only a full snapshot can tell.
 */
export async function treeFromChanges(
  ws: string,
  baselineTree: string,
  changed: ChangedPaths,
): Promise<string | undefined> {
  const present: string[] = [];
  const gone: string[] = [];
  const stat = listedStat(ws);
  for (const p of changed) {
    if (excluded(p)) continue;
    const st = stat(p);
    if (!st) {
      gone.push(p);
      continue;
    }
    if (st.isDirectory()) {
      // A type change (file -> directory) must drop the file's entry too: --replace does.
      for (const e of walk(join(ws, p))) {
        const rel = `${p}/${e.rel}`;
        if (e.type === 'dir' && basename(rel) === '.git') return undefined; // nested repository
        if (e.type === 'file' || e.type === 'symlink') present.push(rel);
      }
      gone.push(p);
    } else if (st.isFile() || st.isSymbolicLink()) present.push(p);
    else gone.push(p); // special files are never part of a tree (the guard removed them)
  }
  const nested = (p: string) => basename(p) === '.git' || p.includes('/.git/');
  if ([...present, ...gone].some((p) => RULE_FILES.has(basename(p)) || nested(p))) return undefined;
  if (present.length === 0 && gone.length === 0) return baselineTree;
  const ignored = new Set(
    present.length
      ? await gitLines(ws, ['check-ignore', '--no-index', '-z', '--stdin'], present)
      : [],
  );
  // Baseline entries at or below a deleted (or retyped) path leave the index (--force-remove:
  // without asking the disk, see listedStat); then the present files are hashed in (--replace
  // drops a file entry that a new directory now covers).
  const remove = new Set<string>();
  const goneSet = new Set(gone);
  if (goneSet.size)
    for (const f of await filesOf(ws, baselineTree))
      for (let i = f.length; i > 0; i = f.lastIndexOf('/', i - 1))
        if (goneSet.has(f.slice(0, i))) {
          remove.add(f);
          break;
        }
  const add = present.filter((p) => !ignored.has(p));
  for (const p of add) remove.delete(p);
  if (remove.size === 0 && add.length === 0) return baselineTree;
  const index = join(ws, '.git', `nanobench-index-${process.pid}-${Date.now()}`);
  const env = { ...GIT_ENV, GIT_INDEX_FILE: index };
  const run = (args: string[], input?: string) => execText('git', args, { cwd: ws, env, input });
  try {
    await run(['read-tree', baselineTree]);
    // Paths, not pathspecs; present files are hashed as git add would.
    if (remove.size)
      await run(['update-index', '--force-remove', '-z', '--stdin'], `${[...remove].join('\0')}\0`);
    if (add.length)
      await run(['update-index', '--add', '--replace', '-z', '--stdin'], `${add.join('\0')}\0`);
    return (await run(['write-tree'])).trim();
  } catch (e) {
    throw new InfraError(
      'diff',
      `cannot snapshot ${ws}: ${(e as { stderr?: string }).stderr || (e as Error).message}`,
      'snapshot_failed',
    );
  } finally {
    await rm(index, { force: true });
  }
}

/** NUL-separated output of a git command fed NUL-separated paths; exit 1 means "none". */
async function gitLines(ws: string, args: string[], paths: string[]): Promise<string[]> {
  try {
    const out = await execText('git', args, {
      cwd: ws,
      env: GIT_ENV,
      input: `${paths.join('\0')}\0`,
    });
    return out.split('\0').filter(Boolean);
  } catch (e) {
    if (e instanceof ExecError && e.status === 1) return [];
    throw new InfraError('diff', `git ${args[0]} in ${ws}: ${(e as Error).message}`, 'git_failed');
  }
}

/** Lines added by a patch (without the leading "+"), for symbol lookups. */
export function addedLines(patch: string): string[] {
  return patch
    .split('\n')
    .filter((l) => l.startsWith('+') && !l.startsWith('+++'))
    .map((l) => l.slice(1));
}
