// What a trial changed, read from its overlay's upper layer instead of walking the whole
// workspace: the guard, the diff and hardening look only there. With redirect_dir and metacopy
// off (layers.ts), an entry differs from the lower layer only if the upper layer holds it or
// hides it, so
//   - a name in the upper layer that the workspace shows: changed or new (a directory present
//     in both layers is descended into, anything else is taken whole);
//   - a name of the lower layer that the workspace no longer shows: deleted (this covers kernel
//     whiteouts, fuse-overlayfs' .wh. files and opaque directories alike, without reading
//     either format);
//   - a directory absent from the upper layer: unchanged, with everything below it.
// A copy up without a change (a file opened for writing, touched, chmod-ed back) is listed too:
// the set may be larger than the change, never smaller.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type EntryType, entryType, lstatOrNull, walk } from '../util/fs-tree.js';

/**
 * Workspace-relative paths that may differ from the lower layer, sorted, none below another.
 * A path can name a file, a link, a whole directory or something deleted.
 */
export type ChangedPaths = readonly string[];

const names = (dir: string): string[] => {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
};

export function upperChanges(ws: string, lower: string, upper: string): ChangedPaths {
  const out: string[] = [];
  const visit = (rel: string) => {
    const at = (root: string) => (rel ? join(root, rel) : root);
    const shown = new Set(names(at(ws)));
    for (const n of names(at(upper))) {
      if (!shown.has(n)) continue; // a whiteout or an opaque marker: deletions are read below
      const r = rel ? `${rel}/${n}` : n;
      const up = lstatOrNull(join(upper, r));
      if (up?.isDirectory() && lstatOrNull(join(lower, r))?.isDirectory()) visit(r);
      else out.push(r);
    }
    for (const n of names(at(lower))) if (!shown.has(n)) out.push(rel ? `${rel}/${n}` : n);
  };
  visit('');
  return out.sort();
}

/**
 * lstat that believes a directory's listing over a lookup by name: fuse-overlayfs (1.10, Debian
 * 12) still finds lower entries of a directory that was deleted and made again although it no
 * longer lists them (containers/fuse-overlayfs#324). One listing per directory per instance.
 */
export function listedStat(root: string): (rel: string) => ReturnType<typeof lstatOrNull> {
  const listings = new Map<string, Set<string>>();
  return (rel) => {
    const cut = rel.lastIndexOf('/');
    const dir = cut < 0 ? '' : rel.slice(0, cut);
    let listed = listings.get(dir);
    if (!listed) {
      listed = new Set(names(dir ? join(root, dir) : root));
      listings.set(dir, listed);
    }
    return listed.has(rel.slice(cut + 1)) ? lstatOrNull(join(root, rel)) : null;
  };
}

/** Whether `rel` is a changed path, lies below one, or holds one. */
export function touches(changed: ChangedPaths, rel: string): boolean {
  return changed.some((p) => p === rel || p.startsWith(`${rel}/`) || rel.startsWith(`${p}/`));
}

/**
 * walk(tree, prune) restricted to the changed paths: their ancestors, themselves and what lies
 * below them, as far as they exist in `tree` (pruned directories are listed, not entered). Every
 * entry walk() would list and that is not here is the same in the workspace and the lower layer.
 */
export function scopedWalk(
  tree: string,
  changed: ChangedPaths,
  prune: (rel: string, name: string) => boolean = () => false,
): { rel: string; type: EntryType }[] {
  const out = new Map<string, EntryType>();
  const stat = listedStat(tree);
  const typeOf = (rel: string): EntryType | undefined => {
    const st = stat(rel);
    return st ? entryType(st) : undefined;
  };
  for (const p of changed) {
    const parts = p.split('/');
    let pruned = false;
    for (let i = 1; i <= parts.length && !pruned; i++) {
      const rel = parts.slice(0, i).join('/');
      const type = typeOf(rel);
      if (!type) break;
      out.set(rel, type);
      if (type !== 'dir') break;
      pruned = prune(rel, parts[i - 1]);
      if (i === parts.length && !pruned)
        for (const e of walk(join(tree, rel), (r, n) => prune(`${rel}/${r}`, n)))
          out.set(`${rel}/${e.rel}`, e.type);
    }
  }
  return [...out.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([rel, type]) => ({ rel, type }));
}
