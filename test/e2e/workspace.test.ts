// Issue #2: a workspace holds nothing past base_commit, and the install command runs once
// per (repo, base_commit, install command).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { releaseWorkspace } from '../../src/workspace/layers.js';
import { provision } from '../../src/workspace/provision.js';
import { resolveSource } from '../../src/workspace/source.js';
import { EXAMPLES, runJson, tempDir } from '../helpers/cli.js';
import { loadInline } from '../helpers/tasks.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8' });

describe('workspace provisioning', () => {
  it('holds no object, ref, reflog or packed ref past base_commit', async () => {
    const lt = loadInline(EXAMPLES).find((t) => t.task.task_id === 'textkit-001')!;
    const source = resolveSource(lt);
    expect(source.kind).toBe('dataset-mirror');
    // The fix of textkit-001 and the later PR are both in the bundle.
    const future = git(EXAMPLES, 'bundle', 'list-heads', source.location).split(' ')[0];
    const bare = tempDir();
    git(bare, 'clone', '--bare', '-q', source.location, 'src.git');
    const all = git(join(bare, 'src.git'), 'rev-list', '--all').trim().split('\n');
    const past = git(join(bare, 'src.git'), 'rev-list', lt.task.base_commit).trim().split('\n');
    const futureCommits = all.filter((c) => !past.includes(c));
    expect(futureCommits.length).toBeGreaterThanOrEqual(2);
    expect(futureCommits).toContain(future);

    const root = tempDir();
    const ws = join(root, 'ws');
    await provision(join(root, 'cache'), lt.task, source, ws);
    // As root the workspace is an overlay mount: released whatever the assertions say.
    onTestFinished(() => releaseWorkspace(ws));
    expect(git(ws, 'rev-parse', 'HEAD').trim()).toBe(lt.task.base_commit);
    for (const c of futureCommits) {
      const r = spawnSync('git', ['cat-file', '-e', c], { cwd: ws });
      expect(r.status, `commit ${c} must be absent`).not.toBe(0);
    }
    const logAll = git(ws, 'log', '--all', '--format=%H').trim().split('\n');
    expect(logAll.sort()).toEqual(past.sort());
    expect(git(ws, 'fsck', '--lost-found', '--no-progress')).toBe('');
    expect(git(ws, 'for-each-ref', '--format=%(refname)').trim()).toBe('refs/heads/main');
    expect(
      git(ws, 'reflog', '--all', '--format=%H')
        .trim()
        .split('\n')
        .every((h) => past.includes(h)),
    ).toBe(true);
    expect(existsSync(join(ws, '.git', 'FETCH_HEAD'))).toBe(false);
    const packed = join(ws, '.git', 'packed-refs');
    if (existsSync(packed))
      for (const c of futureCommits) expect(readFileSync(packed, 'utf8')).not.toContain(c);
    // The golden change's new content is not in any object either.
    const golden = lt.task.ground_truth_patch
      .split('\n')
      .find((l) => l.startsWith('+') && !l.startsWith('+++') && l.length > 20)!;
    const grep = spawnSync('git', ['grep', '-F', golden.slice(1).trim(), ...past], { cwd: ws });
    expect(grep.status).not.toBe(0);
  });

  it('runs the install command once and reuses the prepared environment', () => {
    const dir = tempDir();
    const counter = join(dir, 'install-count');
    const task = JSON.parse(readFileSync(join(EXAMPLES, 'tasks', 'shopfront-001.json'), 'utf8'));
    expect(task.install_command).toBeTruthy();
    task.install_command = `${task.install_command} && echo ran >> ${counter}`;
    writeFileSync(join(dir, 'shopfront-001.json'), JSON.stringify(task));
    const db = join(dir, 'r.sqlite');
    const out = runJson([
      'run',
      join(dir, 'shopfront-001.json'),
      '--agent',
      'oracle',
      '--runs',
      '3',
      '--mirror',
      join(EXAMPLES, 'mirror'),
      '--db',
      db,
    ]);
    expect(out.trials.map((t) => t.score)).toEqual([1, 1, 1]);
    expect(readFileSync(counter, 'utf8')).toBe('ran\n');
    // A second run on the same cache does not install again either.
    runJson([
      'run',
      join(dir, 'shopfront-001.json'),
      '--agent',
      'nop',
      '--runs',
      '1',
      '--mirror',
      join(EXAMPLES, 'mirror'),
      '--db',
      db,
    ]);
    expect(readFileSync(counter, 'utf8')).toBe('ran\n');
  });
});
