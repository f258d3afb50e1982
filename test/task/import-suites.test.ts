// Issue 5: what `task import` guesses about a repository's test suites and install command.
import { describe, expect, it } from 'vitest';
import { guessSuites } from '../../src/task/guess-suites.js';

function repo(files: Record<string, string | object>) {
  const text = Object.fromEntries(
    Object.entries(files).map(([p, v]) => [p, typeof v === 'string' ? v : JSON.stringify(v)]),
  );
  return { files: new Set(Object.keys(text)), read: (p: string) => text[p] };
}

/** The install's first steps for a package manager other than npm (build-steps.ts, pmSetup). */
const fetched = (dir: string, spec: string) =>
  `mkdir -p .nanobench-tools && echo '*' > .nanobench-tools/.gitignore && npm install --no-save --no-audit --no-fund --prefix .nanobench-tools/${dir} ${spec} && PATH="$PWD/.nanobench-tools/${dir}/node_modules/.bin:$PATH"`;

const pkg = (test: string, devDependencies: Record<string, string> = {}, extra = {}) => ({
  name: 'x',
  scripts: { test },
  devDependencies,
  ...extra,
});

describe('guessSuites: JavaScript and TypeScript runners', () => {
  it('jest: JSON report into a result file, npm ci from package-lock.json', () => {
    const g = guessSuites(
      repo({ 'package.json': pkg('jest --coverage', { jest: '^29' }), 'package-lock.json': '{}' }),
      ['src/__tests__/a.test.js'],
    );
    expect(g.suites).toEqual([
      {
        name: 'js',
        language: 'javascript',
        command: `node -e 'require("jest").run(["--ci","--json","--outputFile=.nanobench-results.json"])'`,
        format: 'jest-json',
        result_file: '.nanobench-results.json',
        test_files: ['src/__tests__/'],
      },
    ]);
    expect(g.install_command).toBe('npm ci');
  });

  it('vitest with pnpm: the version from packageManager, run mode, JSON reporter', () => {
    const g = guessSuites(
      repo({
        'package.json': pkg(
          'vitest --reporter=dot',
          { vitest: '^2' },
          { packageManager: 'pnpm@9.4.0+sha512.abc' },
        ),
        'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
      }),
      ['test/a.test.ts'],
    );
    expect(g.suites[0]).toMatchObject({
      language: 'typescript',
      command: 'npx vitest run --reporter=json --outputFile=.nanobench-results.json',
      format: 'vitest-json',
    });
    expect(g.install_command).toBe(
      `${fetched('pnpm-9.4.0', 'pnpm@9.4.0')} && pnpm install --frozen-lockfile`,
    );
  });

  it('pnpm without packageManager: the major version from the lock file', () => {
    const g = guessSuites(
      repo({
        'package.json': pkg('vitest run', { vitest: '1' }),
        'pnpm-lock.yaml': "lockfileVersion: '6.0'\n",
      }),
      ['test/a.test.ts'],
    );
    expect(g.install_command).toBe(
      `${fetched('pnpm-8', 'pnpm@8')} && pnpm install --frozen-lockfile`,
    );
  });

  it('mocha keeps its spec arguments and reports TAP; yarn 1 from yarn.lock', () => {
    const g = guessSuites(
      repo({
        'package.json': pkg('mocha --reporter spec "test/**/*.js"', { mocha: '10' }),
        'yarn.lock': '',
      }),
      ['test/a.js'],
    );
    expect(g.suites[0]).toMatchObject({
      command: `node -e 'require("mocha/lib/cli/cli.js").main(["--reporter","tap","test/**/*.js"])'`,
      format: 'tap',
    });
    expect(g.install_command).toBe(
      `${fetched('yarn-1', 'yarn@1')} && yarn install --frozen-lockfile`,
    );
  });

  it('yarn 2 and later from packageManager: the @yarnpkg/cli-dist package, not `yarn` (1.x only)', () => {
    const g = guessSuites(
      repo({
        'package.json': JSON.stringify({
          scripts: { test: 'mocha test/**/*.js' },
          devDependencies: { mocha: '10' },
          packageManager: 'yarn@4.12.0+sha512.abc',
        }),
        'yarn.lock': '',
      }),
      ['test/a.js'],
    );
    // Fetched once by the install into a directory that ignores itself, then run from PATH.
    expect(g.install_command).toBe(
      `mkdir -p .nanobench-tools && echo '*' > .nanobench-tools/.gitignore && npm install --no-save --no-audit --no-fund --prefix .nanobench-tools/yarn-4.12.0 @yarnpkg/cli-dist@4.12.0 && PATH="$PWD/.nanobench-tools/yarn-4.12.0/node_modules/.bin:$PATH" && yarn install --immutable`,
    );
  });

  it('tap: coverage off in the way its major version spells it', () => {
    const t18 = guessSuites(repo({ 'package.json': pkg('tap', { tap: '^18.6.1' }) }), [
      'test/a.js',
    ]);
    expect(t18.suites[0].command).toBe('npx tap --reporter=tap --disable-coverage');
    const t16 = guessSuites(repo({ 'package.json': pkg('tap test/*.js', { tap: '16.3.0' }) }), [
      'test/a.js',
    ]);
    expect(t16.suites[0].command).toBe('npx tap --reporter=tap --no-coverage test/*.js');
    expect(t16.install_command).toBe('npm install');
  });

  it('node --test: the TAP reporter replaces any other, file arguments kept; no deps, no install', () => {
    const g = guessSuites(
      repo({ 'package.json': pkg('node --test --test-reporter=spec test/*.test.js') }),
      ['test/a.test.js'],
    );
    expect(g.suites[0]).toMatchObject({
      command: 'node --test --test-reporter=tap test/*.test.js',
      format: 'node-tap',
      test_files: ['test/'],
    });
    expect(g.install_command).toBeNull();
  });

  it('a package in a subdirectory runs there; its result file is relative to the root', () => {
    const g = guessSuites(
      repo({ 'web/package.json': pkg('jest', { jest: '29' }), 'web/package-lock.json': '{}' }),
      ['web/test/a.test.js'],
    );
    expect(g.suites[0]).toMatchObject({
      command: `cd web && node -e 'require("jest").run(["--ci","--json","--outputFile=.nanobench-results.json"])'`,
      result_file: 'web/.nanobench-results.json',
      test_files: ['web/test/'],
    });
    expect(g.install_command).toBe('(cd web && npm ci)');
  });

  it('an unknown runner falls back to npm test graded by exit code, and says so', () => {
    const g = guessSuites(repo({ 'package.json': pkg('ava', { ava: '6' }) }), ['test/a.js']);
    expect(g.suites[0]).toMatchObject({ command: 'npm test', format: 'exit-code' });
    expect(g.notes.join('\n')).toMatch(/no known test runner/);
  });
});

describe('guessSuites: scripts with several runner invocations (issue 11)', () => {
  it("takes the invocation that reaches the PR's tests, not the first one with its filter", () => {
    const scripts = {
      lint: 'eslint .',
      test: 'npm run lint && vitest --run typecheck && vitest run',
    };
    const g = guessSuites(
      repo({ 'package.json': pkg(scripts.test, { vitest: '3' }, { scripts }) }),
      ['tests/parse.test.ts'],
    );
    expect(g.suites[0].command).toBe(
      'npx vitest run --reporter=json --outputFile=.nanobench-results.json',
    );
    expect(g.notes.join('\n')).toMatch(
      /invoke 2 runner\(s\); took "vitest run".*not "vitest --run typecheck"/,
    );
  });

  it("a filter that selects the PR's test files is kept", () => {
    const scripts = { test: 'vitest run unit && vitest run tests/parse' };
    const g = guessSuites(
      repo({ 'package.json': pkg(scripts.test, { vitest: '3' }, { scripts }) }),
      ['tests/parse.test.ts'],
    );
    expect(g.suites[0].command).toMatch(/\.json tests\/parse$/);
  });

  it('follows npm run into the script that runs the tests', () => {
    const scripts = {
      build: 'tsc',
      test: 'npm run build && npm run test:unit',
      'test:unit': 'mocha --require ts-node/register "test/**/*.spec.ts"',
    };
    const g = guessSuites(
      repo({ 'package.json': pkg(scripts.test, { mocha: '10' }, { scripts }) }),
      ['test/a.spec.ts'],
    );
    // The build before the runner is run first (issue 24: tests that import built files).
    expect(g.suites[0].command).toBe(
      `{ npm run build; } >&2; node -e 'require("mocha/lib/cli/cli.js").main(["--reporter","tap","--require","ts-node/register","test/**/*.spec.ts"])'`,
    );
  });
});

describe("guessSuites --narrow: the PR's test files only", () => {
  it("replaces the script's files and filters, keeps its options, skips fixtures and helpers", () => {
    const g = guessSuites(
      repo({
        'package.json': pkg('mocha --require test/support/env.js --check-leaks "test/**/*.js"', {
          mocha: '10',
        }),
        'test/a.js': '',
      }),
      ['test/a.js', 'test/support/env.js', 'test/fixtures/data.js', 'test/__snapshots__/a.snap'],
      { narrow: true },
    );
    expect(g.suites[0].command).toBe(
      `node -e 'require("mocha/lib/cli/cli.js").main(["--reporter","tap","--require","test/support/env.js","--check-leaks","test/a.js"])'`,
    );
    expect(g.notes.join('\n')).toMatch(/narrowed to the PR's 1 test file\(s\): test\/a.js/);
  });

  it('relative to the package directory, and for Python suites too', () => {
    const g = guessSuites(
      repo({
        'web/package.json': pkg('jest', { jest: '29' }),
        'web/test/a.test.js': '',
        'api/tests/test_a.py': 'import pytest\n',
        'api/tests/conftest.py': '',
      }),
      ['web/test/a.test.js', 'api/tests/test_a.py', 'api/tests/conftest.py'],
      { narrow: true },
    );
    expect(g.suites.map((s) => s.command)).toEqual([
      `cd web && node -e 'require("jest").run(["--ci","--json","--outputFile=.nanobench-results.json","test/a.test.js"])'`,
      "cd api && PYTEST_ADDOPTS='-p no:cacheprovider -q --junitxml=.nanobench-results.xml' python3 -m pytest tests/test_a.py",
    ]);
  });

  it('never points the runner at a test file the PR deletes', () => {
    const g = guessSuites(
      repo({ 'package.json': pkg('node --test tests/'), 'tests/a.test.js': '' }),
      ['tests/a.test.js', 'tests/removed.test.js'],
      { narrow: true },
    );
    expect(g.suites[0].command).toBe('node --test --test-reporter=tap tests/a.test.js');
  });

  it("keeps the script's own arguments when the PR changes no runnable test file", () => {
    const g = guessSuites(
      repo({ 'package.json': pkg('mocha test/', { mocha: '10' }) }),
      ['test/fixtures/input.js'],
      { narrow: true },
    );
    expect(g.suites[0].command).toBe(
      `node -e 'require("mocha/lib/cli/cli.js").main(["--reporter","tap","test/"])'`,
    );
    expect(g.notes.join('\n')).toMatch(/script's own arguments were kept/);
  });
});

describe('guessSuites: Python', () => {
  it('unittest when nothing points at pytest', () => {
    const g = guessSuites(repo({ 'pkg/a.py': '', 'tests/test_a.py': 'import unittest\n' }), [
      'tests/test_a.py',
    ]);
    expect(g.suites).toEqual([
      {
        name: 'py',
        language: 'python',
        command: 'python3 -m unittest -v',
        format: 'unittest',
        test_files: ['tests/'],
      },
    ]);
    expect(g.install_command).toBeNull();
  });

  it('pytest (JUnit XML) when a test imports it; a pure-Python project installs nothing', () => {
    const g = guessSuites(
      repo({
        'pyproject.toml':
          '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n[project]\nname = "x"\nrequires-python = ">=3.9"\ndependencies = []\n',
        'src/x/__init__.py': '',
        'tests/test_a.py': 'import pytest\n',
      }),
      ['tests/test_a.py'],
    );
    expect(g.suites[0]).toMatchObject({
      command:
        "PYTHONPATH=src PYTEST_ADDOPTS='-p no:cacheprovider -q --junitxml=.nanobench-results.xml' python3 -m pytest",
      format: 'junit-xml',
      result_file: '.nanobench-results.xml',
    });
    expect(g.install_command).toBe(
      "python3 -c 'import sys; assert sys.version_info >= (3, 9)' || { echo 'needs Python >= 3.9 as python3' >&2; exit 1; } && python3 -c 'import pytest' || { echo 'needs pytest: apt-get install python3-pytest' >&2; exit 1; }",
    );
    expect(g.notes.join('\n')).toMatch(
      /pure-Python project: nothing installed.*standard library only/,
    );
  });

  it("a pure-Python project's requirements are checked as Debian's python3-* modules, never downloaded", () => {
    const g = guessSuites(
      repo({
        'pyproject.toml': `[project]
name = "x"
dependencies = ["PyYAML>=6", "colorama; sys_platform == 'win32'", "tomli>=1.1; python_version < '3.11'"]
[project.optional-dependencies]
test = ["pytest>=7", "pretend"]
`,
        'x/__init__.py': '',
        'tests/test_a.py': 'import pytest\n',
      }),
      ['tests/test_a.py'],
    );
    expect(g.suites[0].command).toMatch(/^PYTHONPATH=\. PYTEST_ADDOPTS=/);
    expect(g.install_command).toContain(
      "python3 -c 'import pretend' || { echo 'needs pretend: apt-get install python3-pretend'",
    );
    expect(g.install_command).toContain(
      "python3 -c 'import yaml' || { echo 'needs yaml: apt-get install python3-yaml'",
    );
    // Windows-only and backports for older Pythons are not requirements here.
    expect(g.install_command).not.toMatch(/colorama|tomli/);
  });

  it('a project that must be compiled still gets a .venv and pip', () => {
    const g = guessSuites(
      repo({
        'pyproject.toml':
          '[build-system]\nrequires = ["maturin>=1"]\nbuild-backend = "maturin"\n[project]\nname = "x"\n',
        'tests/test_a.py': 'import pytest\n',
      }),
      ['tests/test_a.py'],
    );
    expect(g.suites[0].command).toMatch(/\.venv\/bin\/python -m pytest$/);
    expect(g.install_command).toMatch(/^python3 -m venv \.venv && .*pip install -q -e \. pytest$/);
  });

  it('a polyglot PR gets one suite per language', () => {
    const g = guessSuites(
      repo({ 'web/package.json': pkg('node --test test/'), 'api/tests/test_a.py': '' }),
      ['web/test/a.test.js', 'api/tests/test_a.py'],
    );
    expect(g.suites.map((s) => [s.name, s.command])).toEqual([
      ['js', 'cd web && node --test --test-reporter=tap test/'],
      ['py', 'cd api && python3 -m unittest -v'],
    ]);
  });
});

describe('guessSuites: what real PRs change (issue 11)', () => {
  it('a PR whose only test change is a fixture still protects it (test_files)', () => {
    const g = guessSuites(repo({ 'package.json': pkg('mocha', { mocha: '10' }) }), [
      'test/fixtures/markdown/extras.txt',
    ]);
    expect(g.suites[0].test_files).toEqual(['test/']);
  });

  it('a type-level test file does not make a JavaScript suite TypeScript', () => {
    const g = guessSuites(repo({ 'package.json': pkg('mocha test/unit', { mocha: '10' }) }), [
      'test/unit/a.test.js',
      'test/unit/b.test.js',
      'test/typescript-tests/types.ts',
    ]);
    expect(g.suites[0].language).toBe('javascript');
  });
});

describe('guessSuites: monorepos', () => {
  it('a package without a lock file of its own installs from the workspace root', () => {
    const g = guessSuites(
      repo({
        'package.json': {
          name: 'root',
          devDependencies: { vitest: '3' },
          packageManager: 'pnpm@10.1.0',
        },
        'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
        'packages/zod/package.json': pkg('vitest run'),
      }),
      ['packages/zod/src/tests/a.test.ts'],
    );
    expect(g.install_command).toBe(
      `${fetched('pnpm-10.1.0', 'pnpm@10.1.0')} && pnpm install --frozen-lockfile`,
    );
    expect(g.suites[0].command).toMatch(/^cd packages\/zod && npx vitest run/);
  });
});

describe('guessSuites: the environment a test script sets for its runner (issue 24)', () => {
  it('NAME=value and cross-env before the runner, in the script or on the way to it', () => {
    const guess = (scripts: Record<string, string>) =>
      guessSuites(
        repo({
          'package.json': pkg('', { jest: '^29' }, { scripts }),
          'package-lock.json': '{}',
        }),
        ['src/a.test.js'],
      );
    const g = guess({ test: 'TZ=UTC cross-env NODE_ENV=test jest' });
    expect(g.suites[0].command).toMatch(/^TZ=UTC NODE_ENV=test node -e 'require\("jest"\)/);
    expect(g.notes.join('\n')).toContain(
      'the test script sets TZ=UTC NODE_ENV=test for its runner; the suite command does too',
    );
    // Inherited through `npm run`, as the shell's environment is.
    expect(
      guess({ test: 'cross-env LANG=C npm run unit', unit: 'jest' }).suites[0].command,
    ).toMatch(/^LANG=C node -e/);
    // Another command's assignments are not the runner's.
    expect(guess({ test: 'FOO=1 node prep.js && jest' }).suites[0].command).toMatch(/^node -e/);
  });
});

describe('guessSuites: build steps before the runner (issue 24)', () => {
  const TAP = `node -e 'require("mocha/lib/cli/cli.js").main(["--reporter","tap","test/a.js"])'`;
  const YARN4_PATH = 'PATH="$PWD/.nanobench-tools/yarn-4.1.0/node_modules/.bin:$PATH"';

  it("runs the chain's build scripts first through Yarn 2+, lint and checks left out", () => {
    const scripts = {
      test: 'nyc yarn unit',
      unit: 'yarn build && cross-env NODE_ENV=test yarn mocha-all',
      build: 'yarn lint && yarn gen-esm && yarn check-types && yarn bundle',
      lint: 'yarn eslint',
      'gen-esm': 'yarn tsc --outDir out && node make-pkg.js',
      'check-types': 'yarn tsd',
      bundle: 'rollup -c',
      'mocha-all': "mocha 'test/**/*.js'",
    };
    const g = guessSuites(
      repo({
        'package.json': pkg('', { mocha: '^10' }, { scripts, packageManager: 'yarn@4.1.0' }),
        'yarn.lock': '',
        'test/a.js': '',
      }),
      ['test/a.js'],
      { narrow: true },
    );
    // NODE_ENV=test, set by cross-env on the way to the runner, is set for it too.
    expect(g.suites[0].command).toBe(
      `${YARN4_PATH}; { yarn run gen-esm; yarn run bundle; } >&2; NODE_ENV=test ${TAP}`,
    );
    expect(g.notes.join('\n')).toMatch(
      /builds before its runner.*output to stderr; left out as lint, check or test steps: "lint", "check-types"/,
    );
  });

  it('only the steps that write a directory the tests import, when some of them name it', () => {
    const scripts = {
      test: 'npm run build && mocha',
      build: 'npm run build:esm && npm run build:cjs && rollup -c',
      'build:esm': 'tsc --outDir libesm && node write-pkg.js libesm',
      'build:cjs': 'tsc --module commonjs --outDir libcjs',
    };
    const files = (test: string) =>
      repo({
        'package.json': pkg('', { mocha: '^10' }, { scripts }),
        'package-lock.json': '{}',
        'src/a.ts': '',
        'test/a.js': test,
      });
    const g = guessSuites(
      files("import { a } from '../libesm/a.js';\nimport { b } from '../src/b.js';\n"),
      ['test/a.js'],
      { narrow: true },
    );
    expect(g.suites[0].command).toBe(`{ npm run build:esm; } >&2; ${TAP}`);
    expect(g.notes.join('\n')).toMatch(
      /left out as writing nothing the tests import \(libesm\/\): "npm run build:cjs", "npm exec -c 'rollup -c'"/,
    );
    // Tests that import no build output by path get every build step.
    const all = guessSuites(files("const { a } = require('my-pkg');\n"), ['test/a.js'], {
      narrow: true,
    });
    expect(all.suites[0].command).toBe(
      `{ npm run build:esm; npm run build:cjs; npm exec -c 'rollup -c'; } >&2; ${TAP}`,
    );
  });

  it('npm: the pretest hook and a plain build command before the runner; a lint pretest is not', () => {
    const files = (scripts: Record<string, string>) =>
      repo({
        'package.json': pkg('', { mocha: '^10' }, { scripts }),
        'package-lock.json': '{}',
        'test/a.js': '',
      });
    const built = guessSuites(
      files({ pretest: 'npm run compile', compile: 'tsc -p .', test: 'tsc -p test && mocha' }),
      ['test/a.js'],
      { narrow: true },
    );
    expect(built.suites[0].command).toBe(
      `{ npm run compile; npm exec -c 'tsc -p test'; } >&2; ${TAP}`,
    );
    const linted = guessSuites(
      files({ pretest: 'eslint . && prettier --check .', test: 'mocha' }),
      ['test/a.js'],
      { narrow: true },
    );
    expect(linted.suites[0].command).toBe(TAP);
  });

  it('pnpm: scripts through pnpm run; no pretest hook; type checks and unrelated scripts skipped', () => {
    const g = guessSuites(
      repo({
        'package.json': pkg(
          '',
          { vitest: '^2' },
          {
            packageManager: 'pnpm@9.4.0',
            scripts: {
              pretest: 'pnpm build',
              test: 'pnpm clean && tsc --noEmit && pnpm build:lib && vitest run',
              clean: 'rm -rf dist',
              'build:lib': 'tsup src/index.ts',
            },
          },
        ),
        'pnpm-lock.yaml': "lockfileVersion: '9.0'\n",
        'test/a.test.ts': '',
      }),
      ['test/a.test.ts'],
    );
    expect(g.suites[0].command).toBe(
      'PATH="$PWD/.nanobench-tools/pnpm-9.4.0/node_modules/.bin:$PATH"; { pnpm run build:lib; } >&2; npx vitest run --reporter=json --outputFile=.nanobench-results.json',
    );
  });

  it('a script with nothing to build before its runner gets no prefix and no build note', () => {
    const g = guessSuites(
      repo({ 'package.json': pkg('mocha', { mocha: '^10' }), 'test/a.js': '' }),
      ['test/a.js'],
      { narrow: true },
    );
    expect(g.suites[0].command).toBe(TAP);
    expect(g.notes.join('\n')).not.toMatch(/build/);
  });
});

describe('guessSuites: the package manager is fetched by the install, not by the suite (jsdiff#700)', () => {
  const TAP = `node -e 'require("mocha/lib/cli/cli.js").main(["--reporter","tap","test/a.js"])'`;
  const buildsFirst = (packageManager: string) =>
    pkg(
      '',
      { mocha: '^10' },
      { packageManager, scripts: { test: 'yarn build && mocha', build: 'tsc' } },
    );

  it('packages in subdirectories: one fetch at the root, PATH from each package to it', () => {
    const g = guessSuites(
      repo({
        'packages/a/package.json': buildsFirst('yarn@4.1.0'),
        'packages/a/yarn.lock': '',
        'packages/a/test/a.js': '',
        'tools/b/package.json': buildsFirst('yarn@4.1.0'),
        'tools/b/yarn.lock': '',
        'tools/b/test/a.js': '',
      }),
      ['packages/a/test/a.js', 'tools/b/test/a.js'],
      { narrow: true },
    );
    expect(g.install_command).toBe(
      `${fetched('yarn-4.1.0', '@yarnpkg/cli-dist@4.1.0')} && (cd packages/a && yarn install --immutable) && (cd tools/b && yarn install --immutable)`,
    );
    expect(g.suites.map((s) => s.command)).toEqual([
      `cd packages/a && PATH="$PWD/../../.nanobench-tools/yarn-4.1.0/node_modules/.bin:$PATH"; { yarn run build; } >&2; ${TAP}`,
      `cd tools/b && PATH="$PWD/../../.nanobench-tools/yarn-4.1.0/node_modules/.bin:$PATH"; { yarn run build; } >&2; ${TAP}`,
    ]);
    expect(g.notes.join('\n')).toMatch(
      /the install fetches the package manager into \.nanobench-tools\/ \(a directory git ignores\)/,
    );
  });

  it.each([
    ['pnpm@9.4.0', 'pnpm-lock.yaml'],
    ['yarn@1.22.22', 'yarn.lock'],
    ['yarn@4.12.0', 'yarn.lock'],
  ])('%s: nothing the suite runs fetches (no npx --yes)', (packageManager, lock) => {
    const g = guessSuites(
      repo({ 'package.json': buildsFirst(packageManager), [lock]: '', 'test/a.js': '' }),
      ['test/a.js'],
      { narrow: true },
    );
    expect(g.suites[0].command).toMatch(/ run build; \} >&2; /);
    for (const cmd of [g.install_command ?? '', ...g.suites.map((s) => s.command)])
      expect(cmd).not.toMatch(/npx --yes|npx -y\b/);
  });
});
