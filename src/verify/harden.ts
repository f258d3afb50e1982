// Verification hardening: what runs between the agent and the tests. Two steps:
//   sanitizeWorkspace   before the diff: only plain files NanoBench can read safely (no escaping
//                       symlinks, no FIFOs, nothing unreadable);
//   restoreInfrastructure before verifying: test infrastructure back to the env snapshot
//                       (runner configs, package.json test fields, lockfiles, conftest.py,
//                       site hooks, installed dependencies, modules that shadow the stdlib).
// The test files themselves are restored by restore.ts. Comparisons are with the snapshot on
// disk; whatever the agent changed is reported so the integrity audit can flag it.
import { chmodSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { ResolvedTask } from '../task/patches.js';
import { containedPath } from '../util/contained-path.js';
import { InfraError } from '../util/errors.js';
import { lstatOrNull, restoreEntry, sameEntry, walk } from '../util/fs-tree.js';
import { type ChangedPaths, scopedWalk, touches } from '../workspace/changes.js';
import { mergePackageJson, mergeTestSections } from './config-merge.js';
import { commandFiles, DEPENDENCY_DIRS, infraKind } from './infra.js';
import { patchPaths, protectedTestPaths, testPathIn } from './restore.js';
import { protectedModules, shadows } from './shadow.js';

export interface SanitizeReport {
  /** Symlinks the agent left that point outside the workspace (removed). */
  escapingSymlinks: string[];
  /** FIFOs, sockets, devices (removed: reading one would hang or fail the diff). */
  specialFiles: string[];
}

export interface InfraReport {
  /** Test paths (test_files, test_patch paths) the agent changed; restore.ts puts them back. */
  touchedTests: string[];
  /** Test infrastructure the agent changed, now back at baseline. */
  touchedInfra: string[];
  /** Declared result files the agent wrote (removed before the suites run). */
  resultFiles: string[];
}

/**
 * ws/<result_file>, refused when it would reach outside the workspace (a task loaded through the
 * schema never names such a path; a symlink in its repository may still lead out).
 */
export const resultFileIn = (ws: string, rel: string, followLast = false) =>
  containedPath(
    ws,
    rel,
    (why) =>
      new InfraError('verify', `result_file "${rel}" ${why}: it is not touched`, 'bad_result_file'),
    followLast,
  );

const pruneGit = (_rel: string, name: string) => name === '.git' || DEPENDENCY_DIRS.has(name);

function escapes(ws: string, rel: string, target: string): boolean {
  const to = resolve(dirname(join(ws, rel)), target);
  return to !== ws && !to.startsWith(`${ws}/`);
}

/**
 * walk(), or on an overlay only the part of the tree that can differ from the snapshot (the
 * changed paths, their ancestors and what lies below them): the rest is the snapshot's own.
 */
const entries = (
  tree: string,
  prune: (rel: string, name: string) => boolean,
  changed: ChangedPaths | undefined,
) => (changed ? scopedWalk(tree, changed, prune) : walk(tree, prune));

/** Before the diff: remove escaping symlinks and special files; make everything readable. */
export function sanitizeWorkspace(
  ws: string,
  snapshotWs: string,
  changed?: ChangedPaths,
): SanitizeReport {
  const report: SanitizeReport = { escapingSymlinks: [], specialFiles: [] };
  ensureOwnerAccess(ws, changed);
  for (const e of entries(ws, pruneGit, changed)) {
    const abs = join(ws, e.rel);
    if (e.type === 'other') {
      rmSync(abs, { force: true });
      report.specialFiles.push(e.rel);
    } else if (e.type === 'symlink') {
      const target = readlinkSafe(abs);
      if (target === undefined || !escapes(ws, e.rel, target)) continue;
      if (sameEntry(abs, join(snapshotWs, e.rel))) continue; // part of the repository at base
      rmSync(abs, { force: true });
      report.escapingSymlinks.push(`${e.rel} -> ${target}`);
    }
  }
  return report;
}

function readlinkSafe(p: string): string | undefined {
  try {
    return readlinkSync(p);
  } catch {
    return undefined;
  }
}

/** Owner read/write (and search on directories) everywhere, so git and the walks can read it. */
function ensureOwnerAccess(ws: string, changed: ChangedPaths | undefined): void {
  const fix = (abs: string, dir: boolean) => {
    const st = lstatOrNull(abs);
    if (!st || st.isSymbolicLink()) return;
    const need = dir ? 0o700n : 0o600n;
    if ((st.mode & need) !== need) chmodSync(abs, Number(st.mode & 0o7777n) | Number(need));
  };
  if (!changed) fix(ws, true);
  const prune = (rel: string, name: string) => {
    fix(join(ws, rel), true); // before walk() reads it
    return name === '.git';
  };
  for (const e of entries(ws, prune, changed)) if (e.type === 'file') fix(join(ws, e.rel), false);
}

/**
 * Dependency directories (node_modules, site-packages) the agent changed since `sinceNs`
 * (ctime, which no process can set back) are restored from the snapshot as a whole.
 */
function restoreDependencies(
  ws: string,
  snapshotWs: string,
  sinceNs: bigint,
  changedPaths: ChangedPaths | undefined,
): string[] {
  const roots = new Set<string>();
  const prune = (_rel: string, name: string) => name === '.git' || DEPENDENCY_DIRS.has(name);
  for (const tree of [ws, snapshotWs])
    for (const e of entries(tree, prune, changedPaths))
      if (e.type === 'dir' && DEPENDENCY_DIRS.has(e.rel.split('/').pop()!)) roots.add(e.rel);
  const changed: string[] = [];
  for (const rel of [...roots].sort()) {
    const now = join(ws, rel);
    const then = join(snapshotWs, rel);
    const stNow = lstatOrNull(now);
    // On an overlay the upper layer says it; on a copy, ctime does.
    const dirty = changedPaths
      ? touches(changedPaths, rel)
      : !stNow ||
        !lstatOrNull(then) ||
        stNow.ctimeNs >= sinceNs ||
        walk(now).some((e) => {
          const st = lstatOrNull(join(now, e.rel));
          return !st || (st.ctimeNs >= sinceNs && !sameEntry(join(now, e.rel), join(then, e.rel)));
        });
    if (!dirty || sameEntry(now, then)) continue;
    restoreEntry(ws, snapshotWs, rel);
    changed.push(`${rel}/`);
  }
  return changed;
}

/** Before verifying: every piece of test infrastructure back to the snapshot's. */
export function restoreInfrastructure(
  ws: string,
  snapshotWs: string,
  task: ResolvedTask,
  sinceNs: bigint,
  /** HOME of the test runs: it must not exist yet (the agent could plant user-site hooks). */
  verifyHome?: string,
  /** On an overlay: the only paths that can differ from the snapshot (changes.ts). */
  changed?: ChangedPaths,
): InfraReport {
  const touchedTests = protectedTestPaths(task).filter(
    (p) => (!changed || touches(changed, p)) && !sameEntry(testPathIn(ws, p), join(snapshotWs, p)),
  );
  const resultFiles: string[] = [];
  for (const s of task.test_suites) {
    if (!s.result_file) continue;
    const file = resultFileIn(ws, s.result_file);
    if (!lstatOrNull(file)) continue;
    if (!sameEntry(file, join(snapshotWs, s.result_file))) resultFiles.push(s.result_file);
    rmSync(file, { recursive: true, force: true });
  }
  const touchedInfra = restoreDependencies(ws, snapshotWs, sinceNs, changed);
  if (verifyHome && lstatOrNull(verifyHome)) {
    rmSync(verifyHome, { recursive: true, force: true });
    touchedInfra.push(`${verifyHome} (HOME of the test runs)`);
  }
  // A file the PR itself changes is source for this task, not infrastructure.
  const exempt = new Set(patchPaths(task.ground_truth_patch));
  const isFile = (rel: string) => lstatOrNull(join(snapshotWs, rel))?.isFile() ?? false;
  const candidates = new Set(commandFiles(task, isFile));
  const modules = task.test_suites.some((s) => s.language === 'python')
    ? protectedModules()
    : new Set<string>();
  const inSnapshot = changed
    ? (rel: string) => lstatOrNull(join(snapshotWs, rel)) !== null
    : (() => {
        const seen = new Set(walk(snapshotWs, pruneGit).map((e) => e.rel));
        return (rel: string) => seen.has(rel);
      })();
  for (const tree of [ws, snapshotWs])
    for (const e of entries(tree, pruneGit, changed)) if (infraKind(e.rel)) candidates.add(e.rel);
  for (const e of entries(ws, pruneGit, changed))
    if (!inSnapshot(e.rel) && shadows(e.rel, e.type, ws, modules)) {
      rmSync(join(ws, e.rel), { recursive: true, force: true });
      touchedInfra.push(e.rel);
    }
  for (const rel of [...candidates].sort()) {
    if (exempt.has(rel) || (changed && !touches(changed, rel))) continue;
    if (sameEntry(join(ws, rel), join(snapshotWs, rel))) continue;
    if (restoreInfraFile(ws, snapshotWs, rel)) touchedInfra.push(rel);
  }
  return { touchedTests, touchedInfra: [...new Set(touchedInfra)].sort(), resultFiles };
}

/** Restores one infrastructure path; false when only non-test parts of it differ. */
function restoreInfraFile(ws: string, snapshotWs: string, rel: string): boolean {
  const kind = infraKind(rel);
  const now = lstatOrNull(join(ws, rel));
  const then = lstatOrNull(join(snapshotWs, rel));
  if ((kind === 'package-json' || kind === 'sections') && now?.isFile() && then?.isFile()) {
    const agent = readFileSync(join(ws, rel), 'utf8');
    const base = readFileSync(join(snapshotWs, rel), 'utf8');
    const merged =
      kind === 'package-json' ? mergePackageJson(agent, base) : mergeTestSections(agent, base);
    if (merged === undefined) return false;
    writeFileSync(join(ws, rel), merged);
    return true;
  }
  restoreEntry(ws, snapshotWs, rel);
  return true;
}
