// Choosing the sandbox: auto falls back to none (warning), bwrap refuses to run without it.
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { selectSandbox } from '../../src/workspace/sandbox/select.js';
import { noBwrap } from './require-bwrap.js';

const savedPath = process.env.PATH;
afterEach(() => {
  process.env.PATH = savedPath;
});

/** A PATH with a shell and nothing else: no bwrap. */
function pathWithoutBwrap(): string {
  const dir = mkdtempSync(join(tmpdir(), 'nb-path-'));
  symlinkSync('/bin/sh', join(dir, 'sh'));
  return dir;
}

describe('selectSandbox', () => {
  it('none warns', async () => {
    const warnings: string[] = [];
    const d = await selectSandbox('none', { protectedPaths: [], warn: (l) => warnings.push(l) });
    expect(d.kind).toBe('none');
    expect(warnings).toEqual([
      expect.stringMatching(/^WARNING: sandbox "none": agents run WITHOUT isolation/),
    ]);
  });

  it('auto without bwrap falls back to none, saying why; bwrap refuses', async () => {
    process.env.PATH = pathWithoutBwrap();
    const warnings: string[] = [];
    const d = await selectSandbox('auto', { protectedPaths: [], warn: (l) => warnings.push(l) });
    expect(d.kind).toBe('none');
    expect(d.note).toMatch(/bwrap \(bubblewrap\) is not installed/);
    expect(warnings[0]).toMatch(/--sandbox auto: bwrap unusable/);
    await expect(selectSandbox('bwrap', { protectedPaths: [] })).rejects.toThrow(
      /--sandbox bwrap: bwrap \(bubblewrap\) is not installed/,
    );
  });

  it.skipIf(noBwrap)('auto takes bwrap when a sandboxed command runs here', async () => {
    const warnings: string[] = [];
    const d = await selectSandbox('auto', { protectedPaths: [], warn: (l) => warnings.push(l) });
    expect(d.kind).toBe('bwrap');
    expect(warnings).toEqual([]);
  });
});
