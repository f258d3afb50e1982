// The .git audit: control files changed, commits of the task's repository brought in.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { auditGit, removeNestedGit, restoreGitDir } from '../../src/integrity/git.js';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'a',
      GIT_AUTHOR_EMAIL: 'a@b',
      GIT_COMMITTER_NAME: 'a',
      GIT_COMMITTER_EMAIL: 'a@b',
    },
  }).trim();

/** A source repository with two commits, and a snapshot/workspace pair holding only the first. */
function repos() {
  const root = mkdtempSync(join(tmpdir(), 'nb-git-'));
  const src = join(root, 'src');
  mkdirSync(src);
  git(src, 'init', '-q');
  writeFileSync(join(src, 'f'), '1');
  git(src, 'add', 'f');
  git(src, 'commit', '-qm', 'base');
  const base = git(src, 'rev-parse', 'HEAD');
  writeFileSync(join(src, 'f'), '2');
  git(src, 'commit', '-qam', 'fix');
  const snap = join(root, 'snap');
  mkdirSync(snap);
  git(snap, 'init', '-q');
  git(snap, 'fetch', '-q', src, base);
  git(snap, 'reset', '-q', '--hard', base);
  const ws = join(root, 'ws');
  execFileSync('cp', ['-a', snap, ws]);
  return { src, snap, ws };
}

describe('auditGit', () => {
  it('a clean workspace, or one with the agent own commits, is not flagged', () => {
    const r = repos();
    expect(auditGit(r.ws, r.snap, r.src)).toEqual([]);
    writeFileSync(join(r.ws, 'f'), 'mine');
    git(r.ws, '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '-qam', 'agent');
    expect(auditGit(r.ws, r.snap, r.src)).toEqual([]);
  });

  it('flags control files and commits fetched from the repository past base', () => {
    const r = repos();
    git(r.ws, 'config', 'core.fsmonitor', 'touch /tmp/x');
    writeFileSync(join(r.ws, '.git/hooks/pre-commit'), '#!/bin/sh\n');
    git(r.ws, 'fetch', '-q', r.src, 'HEAD');
    const reasons = auditGit(r.ws, r.snap, r.src);
    expect(reasons.slice(0, 2)).toEqual(['.git/config', '.git/hooks']);
    expect(reasons[2]).toMatch(/^commit [0-9a-f]{12} of the task's repository past base_commit$/);
    restoreGitDir(r.ws, r.snap);
    expect(auditGit(r.ws, r.snap, r.src)).toEqual([]);
  });

  it('a .git that is gone or a file is flagged; nested repositories are removed', () => {
    const r = repos();
    mkdirSync(join(r.ws, 'vendor/x'), { recursive: true });
    git(join(r.ws, 'vendor/x'), 'init', '-q');
    expect(removeNestedGit(r.ws, r.snap)).toEqual(['vendor/x/.git']);
    expect(existsSync(join(r.ws, 'vendor/x'))).toBe(true);
    execFileSync('rm', ['-rf', join(r.ws, '.git')]);
    writeFileSync(join(r.ws, '.git'), 'gitdir: /elsewhere\n');
    expect(auditGit(r.ws, r.snap, r.src)).toEqual(['.git replaced by a file or link']);
  });
});
