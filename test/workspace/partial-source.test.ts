// Issue 11: real mirrors can lack old objects (the public snapshots we fetch leave out files of
// 4 MiB and more). Provisioning must still check out base_commit, without history, and say so;
// when base_commit's own tree is incomplete, the error says what is missing and what to do.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/task/schema.js';
import { ensureSnapshot } from '../../src/workspace/provision.js';
import { tempDir } from '../helpers/cli.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'a',
      GIT_AUTHOR_EMAIL: 'a@x.invalid',
      GIT_COMMITTER_NAME: 'a',
      GIT_COMMITTER_EMAIL: 'a@x.invalid',
    },
  }).trim();

/** A repository whose second commit deleted a large file; the mirror lacks that file's blob. */
function partialMirror(root: string, dropFromBase = false) {
  const repo = join(root, 'repo');
  mkdirSync(repo, { recursive: true });
  git(repo, 'init', '-q', '--initial-branch=main');
  writeFileSync(join(repo, 'big.bin'), 'pretend this is large\n');
  writeFileSync(join(repo, 'a.txt'), 'one\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'add big file');
  const bigBlob = git(repo, 'rev-parse', 'HEAD:big.bin');
  const aBlob = git(repo, 'rev-parse', 'HEAD:a.txt');
  rmSync(join(repo, 'big.bin'));
  writeFileSync(join(repo, 'a.txt'), 'two\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'drop big file');
  const base = git(repo, 'rev-parse', 'HEAD');
  const mirror = join(root, 'mirror.git');
  cpSync(join(repo, '.git'), mirror, { recursive: true });
  git(mirror, 'config', 'core.bare', 'true');
  // Loose objects: deleting the file is what a partial snapshot looks like to git.
  const drop = dropFromBase ? git(repo, 'rev-parse', 'HEAD:a.txt') : bigBlob;
  rmSync(join(mirror, 'objects', drop.slice(0, 2), drop.slice(2)));
  return { mirror, base, aBlob };
}

const task = (base: string) =>
  ({
    task_id: 'partial-1',
    repo: 'fixtures/partial',
    base_commit: base,
    install_command: null,
    timeouts: { agent_sec: 60, verifier_sec: 60 },
  }) as unknown as Task;

describe('provisioning from a source that lacks old objects', () => {
  it('checks out base_commit without history and records why', async () => {
    const root = tempDir('nb-partial-');
    const { mirror, base } = partialMirror(root);
    const snap = await ensureSnapshot(join(root, 'cache'), task(base), mirror);
    const ws = join(snap.dir, 'ws');
    expect(git(ws, 'rev-parse', 'HEAD')).toBe(base);
    expect(git(ws, 'show', 'HEAD:a.txt')).toBe('two');
    expect(git(ws, 'rev-list', '--count', 'HEAD')).toBe('1');
    expect(snap.shallow).toMatch(/lacks objects of base_commit's history/);
    expect(existsSync(join(ws, 'big.bin'))).toBe(false);
  });

  it("a source lacking base_commit's own files is a clear error naming the fix", async () => {
    const root = tempDir('nb-partial-');
    const { mirror, base } = partialMirror(root, true);
    await expect(ensureSnapshot(join(root, 'cache'), task(base), mirror)).rejects.toThrow(
      /lacks objects of base_commit itself .*use a complete clone of the repository as the mirror/,
    );
  });
});
