// The workspace's .git after the agent: audited against the env snapshot, then replaced by the
// snapshot's copy before NanoBench runs any git command there. A .git the agent wrote can make
// the host's git execute commands (core.fsmonitor, filter drivers, hooks) or borrow objects
// from elsewhere (objects/info/alternates); the diff and the test restore must never see it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { lstatOrNull, restoreEntry, sameEntry, walk } from '../util/fs-tree.js';
import { GIT_ENV } from '../util/git.js';
import { DEPENDENCY_DIRS } from '../verify/infra.js';
import { type ChangedPaths, scopedWalk, touches } from '../workspace/changes.js';

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

/** The commits of a snapshot's objects (a snapshot never changes: read once per process). */
const snapshotCommits = new Map<string, Set<string>>();
function commitsOfSnapshot(snapshotWs: string): Set<string> {
  let ids = snapshotCommits.get(snapshotWs);
  if (!ids) {
    ids = commitIds(join(snapshotWs, '.git', 'objects'));
    if (snapshotCommits.size > 16) snapshotCommits.clear();
    snapshotCommits.set(snapshotWs, ids);
  }
  return ids;
}

/**
 * Commit ids in the changed object files only (loose objects and packs the upper layer holds),
 * through a directory of links to them: the unchanged packs hold the snapshot's commits alone.
 * undefined when the object directory itself or its info/ changed (then read it all).
 */
function changedCommitIds(ws: string, changed: ChangedPaths): Set<string> | undefined {
  const objects = changed.filter((p) => touches([p], '.git/objects'));
  if (objects.length === 0) return new Set();
  if (objects.some((p) => !p.startsWith('.git/objects/') || p.startsWith('.git/objects/info')))
    return undefined;
  const files = new Set<string>();
  for (const e of scopedWalk(ws, objects))
    if (e.type === 'file' && e.rel.startsWith('.git/objects/')) {
      const rel = e.rel.slice('.git/objects/'.length);
      files.add(rel);
      // A pack is read through its index: take both whichever of the two changed.
      const pack = /^pack\/(pack-[0-9a-f]+)\.(pack|idx)$/.exec(rel);
      if (pack) for (const ext of ['pack', 'idx']) files.add(`pack/${pack[1]}.${ext}`);
    }
  const dir = mkdtempSync(join(tmpdir(), 'nb-changed-objects-'));
  try {
    for (const rel of files) {
      if (!lstatOrNull(join(ws, '.git', 'objects', rel))) continue;
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      symlinkSync(join(ws, '.git', 'objects', rel), join(dir, rel));
    }
    return commitIds(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What the agent did to .git that it should not have: control files changed, and commits of the
 * task's own repository that were not in the workspace (the future of the repository, i.e. the
 * fix, fetched from somewhere). Read-only; never runs git with the workspace's configuration.
 * With the changed paths of an overlay, only those are read.
 */
export function auditGit(
  ws: string,
  snapshotWs: string,
  sourceClone?: string,
  changed?: ChangedPaths,
): string[] {
  const git = join(ws, '.git');
  const st = lstatOrNull(git);
  if (!st?.isDirectory()) return [st ? '.git replaced by a file or link' : '.git removed'];
  const inGit = changed?.filter((p) => touches([p], '.git'));
  if (inGit?.length === 0) return [];
  const reasons: string[] = [];
  for (const rel of CONTROL)
    if (inGit && !touches(inGit, `.git/${rel}`)) continue;
    else if (!sameEntry(join(git, rel), join(snapshotWs, '.git', rel))) reasons.push(`.git/${rel}`);
  if (sourceClone) {
    const now = (inGit && changedCommitIds(ws, inGit)) ?? commitIds(join(git, 'objects'));
    const before = now.size ? commitsOfSnapshot(snapshotWs) : new Set<string>();
    const added = [...now].filter((id) => !before.has(id)).sort();
    const future = inSource(sourceClone, added);
    for (const id of future.slice(0, MAX_COMMITS))
      reasons.push(`commit ${id.slice(0, 12)} of the task's repository past base_commit`);
    if (future.length > MAX_COMMITS)
      reasons.push(`... ${future.length - MAX_COMMITS} more commits`);
  }
  return reasons;
}

/** Nested repositories the agent created below the root (removed; their files stay). */
export function removeNestedGit(ws: string, snapshotWs: string, changed?: ChangedPaths): string[] {
  const removed: string[] = [];
  const prune = (_rel: string, name: string) => name === '.git' || DEPENDENCY_DIRS.has(name);
  for (const e of changed ? scopedWalk(ws, changed, prune) : walk(ws, prune)) {
    if (!e.rel.endsWith('/.git')) continue;
    if (sameEntry(join(ws, e.rel), join(snapshotWs, e.rel))) continue;
    rmSync(join(ws, e.rel), { recursive: true, force: true });
    removed.push(e.rel);
  }
  return removed;
}

/** The snapshot's .git, whatever the agent made of ours (on an overlay: what it changed of it). */
export function restoreGitDir(ws: string, snapshotWs: string, changed?: ChangedPaths): void {
  if (!changed) {
    restoreEntry(ws, snapshotWs, '.git');
    return;
  }
  for (const p of changed) if (touches([p], '.git')) restoreEntry(ws, snapshotWs, p);
}
