// Issue 16: what changed, read from an overlay's upper layer. The reading compares directory
// listings only (the workspace, the lower and the upper layer), so it is tested here on three
// plain directories laid out the way a mount leaves them; test/workspace/layers.test.ts runs it on
// real kernel and FUSE overlays.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { walk } from '../../src/util/fs-tree.js';
import { scopedWalk, touches, upperChanges } from '../../src/workspace/changes.js';
import { tempDir } from '../helpers/cli.js';

function tree(root: string, files: Record<string, string>): string {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    if (rel.endsWith('/')) mkdirSync(join(root, rel), { recursive: true });
    else writeFileSync(join(root, rel), text);
  }
  return root;
}

describe('changes read from the upper layer', () => {
  const root = tempDir('nb-changes-');
  const lower = tree(join(root, 'lower'), {
    'README.md': 'r',
    'src/a.js': 'a',
    'src/b.js': 'b',
    'src/deep/c.js': 'c',
    'gone/x.js': 'x',
    'retyped.js': 'file',
    'node_modules/p/index.js': 'p',
    'tests/t1.js': '1',
    'tests/t2.js': '2',
  });
  // What the workspace shows: a.js changed, b.js deleted, new.js added, gone/ deleted, tests/
  // deleted and made again with one file, retyped.js now a directory.
  const ws = tree(join(root, 'ws'), {
    'README.md': 'r',
    'src/a.js': 'changed',
    'src/new.js': 'n',
    'src/deep/c.js': 'c',
    'retyped.js/inner.js': 'i',
    'node_modules/p/index.js': 'p',
    'tests/t1.js': 'new',
  });
  // The upper layer: the changed entries, their copied-up parents and the markers a mount keeps
  // (a whiteout, fuse-overlayfs' opaque marker), which the workspace does not show.
  const upper = tree(join(root, 'upper'), {
    'src/a.js': 'changed',
    'src/new.js': 'n',
    'src/b.js': '(whiteout)',
    gone: '(whiteout)',
    'retyped.js/inner.js': 'i',
    'tests/.wh..wh..opq': '',
    'tests/t1.js': 'new',
  });

  it('lists what changed, was added or deleted, and nothing of what did not', () => {
    expect(upperChanges(ws, lower, upper)).toEqual([
      'gone',
      'retyped.js',
      'src/a.js',
      'src/b.js',
      'src/new.js',
      'tests/t1.js',
      'tests/t2.js',
    ]);
  });

  it('walks the changed paths as a whole-tree walk would list them', () => {
    const changed = upperChanges(ws, lower, upper);
    const prune = (_rel: string, name: string) => name === 'node_modules';
    const full = walk(ws, prune).filter((e) => touches(changed, e.rel));
    expect(scopedWalk(ws, changed, prune)).toEqual(
      expect.arrayContaining(full.map((e) => expect.objectContaining(e))),
    );
    expect(scopedWalk(ws, changed, prune).map((e) => e.rel)).toEqual([
      'retyped.js',
      'retyped.js/inner.js',
      'src',
      'src/a.js',
      'src/new.js',
      'tests',
      'tests/t1.js',
    ]);
    // The lower layer: where deleted entries still are.
    expect(scopedWalk(lower, changed, prune).map((e) => e.rel)).toEqual([
      'gone',
      'gone/x.js',
      'retyped.js',
      'src',
      'src/a.js',
      'src/b.js',
      'tests',
      'tests/t1.js',
      'tests/t2.js',
    ]);
  });

  it('a changed path inside a pruned directory lists the directory, not its inside', () => {
    symlinkSync('../README.md', join(ws, 'src', 'link'));
    expect(
      scopedWalk(ws, ['node_modules/p/index.js', 'src/link'], (_r, n) => n === 'node_modules'),
    ).toEqual([
      { rel: 'node_modules', type: 'dir' },
      { rel: 'src', type: 'dir' },
      { rel: 'src/link', type: 'symlink' },
    ]);
  });

  it('touches: the path, what lies below it, what holds it', () => {
    const changed = ['src/a.js', 'gone'];
    expect(touches(changed, 'src')).toBe(true);
    expect(touches(changed, 'src/a.js')).toBe(true);
    expect(touches(changed, 'gone/x.js')).toBe(true);
    expect(touches(changed, 'src/b.js')).toBe(false);
    expect(touches(changed, 'src/a.jsx')).toBe(false);
    expect(touches(changed, 'go')).toBe(false);
  });
});
