// Issue 11: what real PRs carry besides the fix. Import keeps it out of both patches, and an
// install that fails keeps its whole output where the curator can read it.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importFrom } from '../../src/task/import.js';
import type { Task } from '../../src/task/schema.js';
import { isTestPath } from '../../src/task/test-paths.js';
import { ensureSnapshot } from '../../src/workspace/provision.js';
import { tempDir } from '../helpers/cli.js';

const env = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'a',
  GIT_AUTHOR_EMAIL: 'a@x.invalid',
  GIT_COMMITTER_NAME: 'a',
  GIT_COMMITTER_EMAIL: 'a@x.invalid',
};
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env }).trim();
const write = (root: string, files: Record<string, string>) => {
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, p)), { recursive: true });
    writeFileSync(join(root, p), text);
  }
};

describe('task import on a PR that also touches agent instructions and release notes', () => {
  it('leaves them out of both patches, as excluded_paths', () => {
    const repo = join(tempDir('nb-imp-'), 'r');
    mkdirSync(repo);
    git(repo, 'init', '-q', '--initial-branch=main');
    write(repo, {
      'package.json': '{"name":"x","scripts":{"test":"node --test"}}',
      'src/a.js': 'export const a = 1;\n',
    });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
    write(repo, {
      'src/a.js': 'export const a = 2;\n',
      'test/a.test.js': 'import "node:test";\n',
      'src/__fixtures__/input.txt': 'x\n',
      'AGENTS.md': 'use a = 2\n',
      '.cursor/rules/style.mdc': 'x\n',
      'CHANGELOG.md': '- a is 2\n',
    });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'fix: a is 2');
    const r = importFrom(join(repo, '.git'), repo, { repo, commit: 'HEAD', reference: true });
    expect(r.task.excluded_paths).toEqual(['.cursor/rules/style.mdc', 'AGENTS.md', 'CHANGELOG.md']);
    expect(r.task.required_files).toEqual(['src/a.js']);
    expect(r.task.test_paths).toEqual(['src/__fixtures__/input.txt', 'test/a.test.js']);
    expect(isTestPath('src/__mocks__/fs.js')).toBe(true);
  });
});

describe('an install that fails', () => {
  it('keeps its whole output in the cache and says where', async () => {
    const root = tempDir('nb-install-');
    const repo = join(root, 'r');
    mkdirSync(repo);
    git(repo, 'init', '-q', '--initial-branch=main');
    write(repo, { 'a.txt': 'a\n' });
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'base');
    const task = {
      task_id: 'install-1',
      repo: 'fixtures/install',
      base_commit: git(repo, 'rev-parse', 'HEAD'),
      install_command:
        'echo "first line of a long npm error"; for i in 1 2 3 4 5; do echo noise $i >&2; done; exit 3',
      timeouts: { agent_sec: 60, verifier_sec: 60 },
    } as unknown as Task;
    const err = await ensureSnapshot(join(root, 'cache'), task, repo).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    const file = /the whole output is in (\S+\.log)/.exec((err as Error).message)?.[1];
    expect(file && existsSync(file)).toBe(true);
    expect(readFileSync(file!, 'utf8')).toContain('first line of a long npm error');
  });
});
