// Issue 24, the two import cases that needed a hand edit: each fixture repository's PR must be
// admitted by `task mine` as imported. (1) A parser under test reads process.argv and exits on an
// unknown option, tested in the runner's own process (jest, mocha): the guessed command keeps the
// reporter options out of process.argv. (2) A standard-library-only Python package (setuptools
// backend, src layout): nothing is installed (no Python registry here), the tests run from the
// checkout. The JavaScript runners come from the npm registry, as every real JS task's do.
// (3) Tests that import what the package's build script writes: the suite builds first, through
// npm, without the lint step before it.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildArgvRepo,
  buildBuiltRepo,
  buildStdlibPyRepo,
  type PrRepo,
} from '../fixtures/mine/build-import-repos.mjs';
import { nanobench, tempDir } from '../helpers/cli.js';

const root = tempDir('nb-mine-imports-');
const cache = join(root, 'cache');

function mineOne(repo: PrRepo, name: string) {
  const out = join(root, `ds-${name}`);
  const r = nanobench([
    'task',
    'mine',
    '--repo',
    repo.root,
    '--name',
    `fixtures/${name}`,
    '--cache-dir',
    cache,
    '--out',
    out,
    '--json',
  ]);
  if (r.code !== 0) throw new Error(`task mine exited ${r.code}\n${r.stderr}`);
  const row = JSON.parse(r.stdout).rows[0];
  const task = existsSync(join(out, 'tasks', `${name}-2.json`))
    ? JSON.parse(readFileSync(join(out, 'tasks', `${name}-2.json`), 'utf8'))
    : undefined;
  return { row, task };
}

/** The environment `task mine` built for the repository (its install already run). */
function envOf(name: string): string {
  const dir = readdirSync(join(cache, 'envs')).find((d) => d.startsWith(`fixtures_${name}-`));
  return join(cache, 'envs', dir!, 'ws');
}

describe('task mine admits the import cases without a hand edit', () => {
  it.each(['jest', 'mocha'] as const)(
    '%s: a parser that reads process.argv, its tests in the runner process',
    (runner) => {
      const repo = buildArgvRepo(root, runner);
      const { row, task } = mineOne(repo, `argv-${runner}`);
      expect(row, row.detail).toMatchObject({
        status: 'admitted',
        fail_to_pass: 1,
        pass_to_pass: 3,
      });
      expect(task.test_suites[0].command).toMatch(/^node -e '/);
      expect(task.fail_to_pass).toEqual([
        runner === 'jest'
          ? 'js::test/cnt.test.js > cnt > counts words between tabs and newlines'
          : 'js::cnt counts words between tabs and newlines',
      ]);
      // The case is real: the runner's reporter options on its command line end the run early.
      const ws = envOf(`argv-${runner}`);
      const old =
        runner === 'jest'
          ? ['jest', '--ci', '--json', `--outputFile=${join(root, 'old.json')}`, 'test/cnt.test.js']
          : ['mocha', '--reporter', 'tap', 'test/'];
      const r = spawnSync('npx', old, {
        cwd: ws,
        encoding: 'utf8',
        env: { ...process.env, CI: '1' },
      });
      expect(`${r.stdout}${r.stderr}`).toMatch(/cnt: unknown option --(ci|reporter)/);
      if (runner === 'jest') expect(existsSync(join(root, 'old.json'))).toBe(false);
      else expect(r.stdout).not.toMatch(/counts words between spaces/);
    },
  );

  it('a standard-library-only Python package: nothing installed, the tests run from src/', () => {
    const repo = buildStdlibPyRepo(root);
    const { row, task } = mineOne(repo, 'unitconv');
    expect(row, row.detail).toMatchObject({ status: 'admitted', fail_to_pass: 1, pass_to_pass: 1 });
    expect(task.install_command).not.toMatch(/pip|venv/);
    expect(task.test_suites[0].command).toMatch(
      /^PYTHONPATH=src PYTEST_ADDOPTS=.* python3 -m pytest tests\/test_convert.py$/,
    );
    expect(task.fail_to_pass).toEqual(['py::tests.test_convert::test_inches']);
    // The route the import used to guess needs a registry this machine does not reach.
    const venv = join(root, 'venv-try');
    execFileSync('python3', ['-m', 'venv', venv]);
    const pip = spawnSync(
      join(venv, 'bin/python'),
      ['-m', 'pip', 'install', '-q', '--no-cache-dir', '-e', repo.root],
      {
        encoding: 'utf8',
        timeout: 120_000,
        env: { ...process.env, PIP_DEFAULT_TIMEOUT: '5', PIP_RETRIES: '0' },
      },
    );
    if (pip.status === 0)
      console.log(
        'note: a Python package registry is reachable here; the pip route would have worked too',
      );
    else
      expect(pip.stderr).toMatch(
        /setuptools|Could not find a version|No matching distribution|connection/i,
      );
  });

  it('tests that import built files: the suite runs the build step first, not the lint', () => {
    const repo = buildBuiltRepo(root);
    const { row, task } = mineOne(repo, 'slugs');
    expect(row, row.detail).toMatchObject({ status: 'admitted', fail_to_pass: 1, pass_to_pass: 1 });
    expect(task.test_suites[0].command).toBe(
      '{ npm run build; } >&2; node --test --test-reporter=tap test/slugify.test.js',
    );
    expect(task.fail_to_pass).toEqual(['js::collapses runs of whitespace']);
  });
});
