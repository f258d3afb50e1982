// Paths that a task names (result files, test files, required and excluded paths, environment
// files) or that a task directory holds are data from the task's author, and NanoBench runs as
// root: a `result_file` of "../../victim" once made the hardening step remove a file outside the
// workspace. Two checks: `pathEscape` on the text, when the task is loaded; `containedPath` at
// the point of use, which also follows the symlinks on the disk (a repository may hold one that
// points outside).
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, posix, relative, resolve } from 'node:path';

/**
 * Why `p`, relative to a root (called `root` in the reason), does not name something inside it;
 * undefined when it does.
 */
export function pathEscape(p: string, root = 'its root'): string | undefined {
  if (p.includes('\0')) return 'holds a NUL byte';
  if (isAbsolute(p)) return 'is absolute';
  const n = posix.normalize(p.replace(/\\/g, '/'));
  if (n === '..' || n.startsWith('../')) return `leaves ${root} through ".."`;
  if (n === '.' || n === './') return `names ${root} itself`;
  return undefined;
}

const inside = (root: string, p: string) => p === root || p.startsWith(`${root}/`);

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/**
 * Why `root/rel` would reach outside `root` on the disk: through "..", or through a symlink
 * among its existing components that points outside. The last component is followed only with
 * `followLast` (a read follows it; a removal removes the link itself).
 */
export function diskEscape(root: string, rel: string, followLast = false): string | undefined {
  const lexical = pathEscape(rel, root);
  if (lexical) return lexical;
  const realRoot = realOrNull(root) ?? resolve(root);
  const parts = posix.normalize(rel.replace(/\\/g, '/')).split('/').filter(Boolean);
  let cur = root;
  for (let i = 0; i < parts.length; i++) {
    cur = join(cur, parts[i]);
    if (i === parts.length - 1 && !followLast) return undefined;
    let isLink: boolean;
    try {
      isLink = lstatSync(cur).isSymbolicLink();
    } catch {
      return undefined; // missing: nothing below it exists to be reached
    }
    if (!isLink) continue;
    // A dangling link is judged by where it points; a live one by where it ends up.
    const to = realOrNull(cur) ?? resolve(dirname(cur), readlinkSync(cur));
    if (!inside(realRoot, to))
      return `goes through the symlink ${relative(root, cur)}, which points outside`;
  }
  return undefined;
}

/** `root/rel`, or the error `fail` makes from the reason it would reach outside `root`. */
export function containedPath(
  root: string,
  rel: string,
  fail: (why: string) => Error,
  followLast = false,
): string {
  const why = diskEscape(root, rel, followLast);
  if (why) throw fail(why);
  return join(root, rel);
}
