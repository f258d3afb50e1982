// The repository at a task's base commit, read from NanoBench's bare clone (never a workspace):
// what files it has and what they hold. Derived behaviours are built from it.
import { execFileSync } from 'node:child_process';
import { GIT_ENV, tryGit } from '../util/git.js';

export interface TreeEntry {
  path: string;
  /** 100644, 100755, 120000 (symlink), 160000 (submodule). */
  mode: string;
  blob: string;
  /** Bytes; undefined for a submodule. */
  size?: number;
}

export interface BaseTree {
  files: TreeEntry[];
  byPath: Map<string, TreeEntry>;
  /** A blob's bytes. */
  read(blob: string): Buffer;
  /** Whether `word` occurs anywhere in the tree (git grep, fixed string, whole word). */
  mentions(word: string): boolean;
}

export function baseTree(clone: string, commit: string): BaseTree {
  const out = execFileSync('git', ['ls-tree', '-r', '-z', '-l', '--full-tree', commit], {
    cwd: clone,
    env: GIT_ENV,
    maxBuffer: 256 * 1024 * 1024,
  }).toString('utf8');
  const files: TreeEntry[] = [];
  for (const rec of out.split('\0')) {
    if (!rec) continue;
    // "<mode> <type> <object> <size>\t<path>"
    const tab = rec.indexOf('\t');
    const [mode, type, blob, size] = rec.slice(0, tab).split(/\s+/);
    if (type !== 'blob' && type !== 'commit') continue;
    files.push({
      path: rec.slice(tab + 1),
      mode,
      blob,
      ...(size !== '-' && { size: Number(size) }),
    });
  }
  return {
    files,
    byPath: new Map(files.map((f) => [f.path, f])),
    read: (blob) =>
      execFileSync('git', ['cat-file', 'blob', blob], {
        cwd: clone,
        env: GIT_ENV,
        maxBuffer: 256 * 1024 * 1024,
      }),
    mentions: (word) =>
      tryGit(clone, ['grep', '-q', '-F', '-w', '-e', word, commit, '--']) !== undefined,
  };
}

/** The bytes as UTF-8 text, or undefined when they are not (binary, another encoding). */
export function asText(buf: Buffer): string | undefined {
  if (buf.includes(0)) return undefined;
  const text = buf.toString('utf8');
  return Buffer.from(text, 'utf8').equals(buf) ? text : undefined;
}
