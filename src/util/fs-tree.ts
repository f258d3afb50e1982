// A plain walk of a directory tree without following symlinks, and the small file operations the
// hardening steps share. Comparisons are against the env snapshot on disk (not git), so nothing
// the agent does to .gitignore or .git can hide a change from them.
import { execFileSync } from 'node:child_process';
import {
  type BigIntStats,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { InfraError } from './errors.js';

export type EntryType = 'file' | 'dir' | 'symlink' | 'other';

export function entryType(st: {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}): EntryType {
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isDirectory()) return 'dir';
  if (st.isFile()) return 'file';
  return 'other';
}

export function lstatOrNull(p: string): BigIntStats | null {
  try {
    return lstatSync(p, { bigint: true });
  } catch {
    return null;
  }
}

/**
 * Relative paths under `root` (depth first, sorted), not descending into directories for which
 * `prune(rel, name)` is true (they are still listed).
 */
export function walk(root: string, prune: (rel: string, name: string) => boolean = () => false) {
  const out: { rel: string; type: EntryType }[] = [];
  const visit = (rel: string) => {
    let names: string[];
    try {
      names = readdirSync(rel ? join(root, rel) : root);
    } catch {
      return;
    }
    for (const name of names.sort()) {
      const r = rel ? `${rel}/${name}` : name;
      const st = lstatOrNull(join(root, r));
      if (!st) continue;
      const type = entryType(st);
      out.push({ rel: r, type });
      if (type === 'dir' && !prune(r, name)) visit(r);
    }
  };
  visit('');
  return out;
}

/** Interpreter caches: running the tests (as agents do) writes them; they are not a change. */
const isCache = (name: string) =>
  name === '__pycache__' || name === '.pytest_cache' || name.endsWith('.pyc');

/**
 * Same type and same content (file bytes, symlink target, or recursively for directories,
 * ignoring interpreter caches).
 */
export function sameEntry(a: string, b: string): boolean {
  const sa = lstatOrNull(a);
  const sb = lstatOrNull(b);
  if (!sa || !sb) return !sa && !sb;
  const ta = entryType(sa);
  if (ta !== entryType(sb)) return false;
  if (ta === 'symlink') return readlinkSync(a) === readlinkSync(b);
  if (ta === 'file')
    return (
      sa.size === sb.size &&
      (sa.mode & 0o111n) === (sb.mode & 0o111n) &&
      readFileSync(a).equals(readFileSync(b))
    );
  if (ta === 'dir') {
    const na = readdirSync(a)
      .filter((n) => !isCache(n))
      .sort();
    const nb = readdirSync(b)
      .filter((n) => !isCache(n))
      .sort();
    return na.join('\0') === nb.join('\0') && na.every((n) => sameEntry(join(a, n), join(b, n)));
  }
  return false;
}

/** Replace symlinked ancestors of `rel` by nothing, so writing there stays in the workspace. */
function unlinkSymlinkedParents(ws: string, rel: string): void {
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) {
    const p = join(ws, ...parts.slice(0, i));
    if (lstatOrNull(p)?.isSymbolicLink()) rmSync(p, { force: true });
  }
}

/** Put `rel` back the way it is in `from` (or remove it when `from` has none). */
export function restoreEntry(ws: string, from: string, rel: string): void {
  unlinkSymlinkedParents(ws, rel);
  const dest = join(ws, rel);
  rmSync(dest, { recursive: true, force: true });
  if (!lstatOrNull(join(from, rel))) return;
  mkdirSync(dirname(dest), { recursive: true });
  try {
    execFileSync('cp', ['-a', join(from, rel), dest], { stdio: 'pipe' });
  } catch (e) {
    throw new InfraError(
      'harden',
      `cannot restore ${rel}: ${(e as Error).message}`,
      'restore_failed',
    );
  }
}

/**
 * The kernel's current file-change time (ns), read from a marker file in `dir`. Every later
 * change in the workspace has a ctime at least this large; no process can set ctime back.
 */
export function ctimeMark(dir: string): bigint {
  const marker = join(dir, `.nanobench-mark-${process.pid}`);
  writeFileSync(marker, '');
  try {
    return lstatSync(marker, { bigint: true }).ctimeNs;
  } finally {
    rmSync(marker, { force: true });
  }
}
