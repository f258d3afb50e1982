// The package manager a guessed JavaScript task needs (pnpm, Yarn) is fetched by its install and
// run from the workspace by its suites (src/task/build-steps.ts): a suite that fetched it
// (`npx --yes -p @yarnpkg/cli-dist@V yarn run ...`) passed validate on this machine and failed
// every trial in the verifier's sandbox, which has no network (kpdecker/jsdiff#700). Here the
// guessed commands run for real in a fixture repository, offline: a stand-in `npm` lays the
// package manager out as `npm install --prefix` does, and is off PATH when the suite runs.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { guessSuites } from '../../src/task/guess-suites.js';
import { GIT_ENV } from '../../src/util/git.js';
import { workspaceDiff } from '../../src/workspace/diff.js';
import { snapshotTree } from '../../src/workspace/provision.js';
import { tempDir } from '../helpers/cli.js';

/** A package manager's stand-in: `install` makes node_modules, `run NAME` notes NAME there. */
const FAKE_PM = `#!/bin/sh
case "$1" in
  install) mkdir -p node_modules && echo "$0 $*" > node_modules/.installed ;;
  run) mkdir -p node_modules && echo "$2" >> node_modules/.ran ;;
  *) exit 2 ;;
esac
`;

/** npm's stand-in: `npm install ... --prefix DIR SPEC` puts SPEC's binary in DIR/node_modules/.bin. */
const FAKE_NPM = `#!/bin/sh
[ "$1" = install ] || exit 3
prefix=; for a in "$@"; do [ "$last" = --prefix ] && prefix=$a; last=$a; done
case "$last" in pnpm@*) bin=pnpm ;; yarn@*|@yarnpkg/cli-dist@*) bin=yarn ;; *) exit 4 ;; esac
mkdir -p "$prefix/node_modules/.bin"
cp "$(dirname "$0")/fake-pm" "$prefix/node_modules/.bin/$bin"
echo "$last" >> "$(dirname "$0")/fetched"
`;

const NODE_TEST = `import { test } from 'node:test';
import { readFileSync } from 'node:fs';
test('the build step ran first', () => {
  if (!readFileSync('node_modules/.ran', 'utf8').includes('build')) throw new Error('not built');
});
`;

function write(root: string, files: Record<string, string>) {
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  }
}

const sh = (cwd: string, command: string, PATH: string) =>
  spawnSync('/bin/sh', ['-c', command], { cwd, encoding: 'utf8', env: { PATH, HOME: cwd } });

const git = (cwd: string, args: string[]) =>
  execFileSync('git', args, { cwd, env: GIT_ENV, encoding: 'utf8' }).trim();

describe('the guessed install fetches the package manager, the suite runs it offline', () => {
  const systemPath = `${dirname(process.execPath)}:/usr/local/bin:/usr/bin:/bin`;

  it.each([
    ['yarn@4.12.0', 'yarn.lock', 'yarn-4.12.0'],
    ['pnpm@9.4.0', 'pnpm-lock.yaml', 'pnpm-9.4.0'],
  ])('%s in a package of a monorepo', async (packageManager, lock, toolDir) => {
    const root = tempDir('nb-pm-tools-');
    const bin = join(root, 'bin');
    write(bin, { 'fake-pm': FAKE_PM, npm: FAKE_NPM });
    chmodSync(join(bin, 'fake-pm'), 0o755);
    chmodSync(join(bin, 'npm'), 0o755);
    const ws = join(root, 'ws');
    const pm = packageManager.split('@')[0];
    const files = {
      '.gitignore': 'node_modules/\n',
      'packages/a/package.json': JSON.stringify({
        name: 'a',
        packageManager,
        scripts: { build: 'tsc', test: `${pm} build && node --test` },
        devDependencies: { typescript: '5' },
      }),
      [`packages/a/${lock}`]: '',
      'packages/a/test/a.test.mjs': NODE_TEST,
    };
    write(ws, files);
    git(ws, ['init', '--quiet', '--initial-branch=main']);
    git(ws, ['add', '-A']);
    git(ws, ['commit', '--quiet', '-m', 'base']);
    const g = guessSuites(
      { files: new Set(Object.keys(files)), read: (p) => (files as Record<string, string>)[p] },
      ['packages/a/test/a.test.mjs'],
      { narrow: true },
    );

    // The install (with "network": the stand-in npm on PATH) fetches it once, into a directory
    // git ignores: the baseline tree is the commit's, as if nothing had been fetched.
    const install = sh(ws, g.install_command!, `${bin}:${systemPath}`);
    expect(install.status, install.stderr).toBe(0);
    expect(readFileSync(join(bin, 'fetched'), 'utf8').trim()).toBe(
      pm === 'yarn' ? '@yarnpkg/cli-dist@4.12.0' : 'pnpm@9.4.0',
    );
    expect(existsSync(join(ws, '.nanobench-tools', toolDir, 'node_modules/.bin', pm))).toBe(true);
    expect(readFileSync(join(ws, 'packages/a/node_modules/.installed'), 'utf8')).toMatch(
      new RegExp(`^${join(ws, '.nanobench-tools', toolDir)}/node_modules/.bin/${pm} install`),
    );
    expect(git(ws, ['status', '--porcelain'])).toBe('');
    const baselineTree = snapshotTree(ws);
    expect(baselineTree).toBe(git(ws, ['rev-parse', 'HEAD^{tree}']));

    // The suite, from the package's directory, without npm's stand-in: its build step runs the
    // fetched package manager, then node --test reports.
    const suite = sh(ws, g.suites[0].command, systemPath);
    expect(g.suites[0].command).not.toMatch(/npx/);
    expect(suite.status, suite.stderr).toBe(0);
    expect(suite.stdout).toMatch(/^# pass 1$/m);
    expect(readFileSync(join(ws, 'packages/a/node_modules/.ran'), 'utf8')).toBe('build\n');
    // The tools are no change of the agent's.
    expect((await workspaceDiff(ws, baselineTree)).files).toEqual([]);
    writeFileSync(join(ws, 'packages/a/index.js'), 'export {};\n');
    expect((await workspaceDiff(ws, baselineTree)).files).toEqual(['packages/a/index.js']);
  });
});
