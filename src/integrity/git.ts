// The workspace's .git after the agent: audited against the env snapshot, then replaced by the
// snapshot's copy before NanoBench runs any git command there. A .git the agent wrote can make
// the host's git execute commands (core.fsmonitor, filter drivers, hooks) or borrow objects
// from elsewhere (objects/info/alternates); the diff and the test restore must never see it.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GIT_ENV } from '../util/git.js';
import { lstatOrNull, restoreEntry, sameEntry, walk } from '../verify/fs-tree.js';
import { DEPENDENCY_DIRS } from '../verify/infra.js';

/** Parts of .git that change how git behaves; the rest (index, refs, logs, objects) may change. */
const CONTROL = [
  'config',
  'hooks',
  'info',
  'objects/info/alternates',
  'objects/info/http-alternates',
  'commondir',
  'shallow',
  'modules',
  'worktrees',
];
const MAX_COMMITS = 5;

/** Commit ids in an object directory, read through a throwaway repository with our own config. */
function commitIds(objectsDir: string): Set<string> {
  const gitDir = mkdtempSync(join(tmpdir(), 'nb-objects-'));
  try {
    execFileSync('git', ['init', '--bare', '--quiet', gitDir], { env: GIT_ENV, stdio: 'pipe' });
    const out = execFileSync(
      'git',
      [
        'cat-file',
        '--batch-all-objects',
        '--unordered',
        '--batch-check=%(objecttype) %(objectname)',
      ],
      {
        env: { ...GIT_ENV, GIT_DIR: gitDir, GIT_OBJECT_DIRECTORY: objectsDir },
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    return new Set(
      out
        .split('\n')
        .filter((l) => l.startsWith('commit '))
        .map((l) => l.slice(7)),
    );
  } catch {
    return new Set();
  } finally {
    rmSync(gitDir, { recursive: true, force: true });
  }
}

/** Which of `ids` the (bare, NanoBench-owned) source clone holds. */
function inSource(sourceClone: string, ids: string[]): string[] {
  if (!ids.length) return [];
  try {
    const out = execFileSync('git', ['cat-file', '--batch-check=%(objectname) %(objecttype)'], {
      cwd: sourceClone,
      env: GIT_ENV,
      input: `${ids.join('\n')}\n`,
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    return out
      .split('\n')
      .filter((l) => l.endsWith(' commit'))
      .map((l) => l.split(' ')[0]);
  } catch {
    return [];
  }
}

/**
 * What the agent did to .git that it should not have: control files changed, and commits of the
 * task's own repository that were not in the workspace (the future of the repository, i.e. the
 * fix, fetched from somewhere). Read-only; never runs git with the workspace's configuration.
 */
export function auditGit(ws: string, snapshotWs: string, sourceClone?: string): string[] {
  const git = join(ws, '.git');
  const st = lstatOrNull(git);
  if (!st?.isDirectory()) return [st ? '.git replaced by a file or link' : '.git removed'];
  const reasons: string[] = [];
  for (const rel of CONTROL)
    if (!sameEntry(join(git, rel), join(snapshotWs, '.git', rel))) reasons.push(`.git/${rel}`);
  if (sourceClone) {
    const before = commitIds(join(snapshotWs, '.git', 'objects'));
    const added = [...commitIds(join(git, 'objects'))].filter((id) => !before.has(id));
    const future = inSource(sourceClone, added);
    for (const id of future.slice(0, MAX_COMMITS))
      reasons.push(`commit ${id.slice(0, 12)} of the task's repository past base_commit`);
    if (future.length > MAX_COMMITS)
      reasons.push(`... ${future.length - MAX_COMMITS} more commits`);
  }
  return reasons;
}

/** Nested repositories the agent created below the root (removed; their files stay). */
export function removeNestedGit(ws: string, snapshotWs: string): string[] {
  const removed: string[] = [];
  const prune = (_rel: string, name: string) => name === '.git' || DEPENDENCY_DIRS.has(name);
  for (const e of walk(ws, prune)) {
    if (!e.rel.endsWith('/.git')) continue;
    if (sameEntry(join(ws, e.rel), join(snapshotWs, e.rel))) continue;
    rmSync(join(ws, e.rel), { recursive: true, force: true });
    removed.push(e.rel);
  }
  return removed;
}

/** The snapshot's .git, whatever the agent made of ours. */
export function restoreGitDir(ws: string, snapshotWs: string): void {
  restoreEntry(ws, snapshotWs, '.git');
}
