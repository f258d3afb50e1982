// Which workspace paths are test infrastructure: everything that decides how the tests run or
// what they report, besides the test files themselves. The agent must not influence any of it.
import { basename } from 'node:path';
import type { Task } from '../task/schema.js';

export type InfraKind =
  /** Restored whole. */
  | 'file'
  /** package.json: its test fields are restored (config-merge.ts). */
  | 'package-json'
  /** pyproject.toml, setup.cfg: their test sections are restored. */
  | 'sections';

const FILES = new Set([
  // package managers and the configuration they read when a suite runs `npm test`
  '.npmrc',
  '.yarnrc',
  '.yarnrc.yml',
  '.pnpmfile.cjs',
  'pnpm-workspace.yaml',
  'bunfig.toml',
  // lockfiles
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lock',
  'bun.lockb',
  'poetry.lock',
  'Pipfile.lock',
  'uv.lock',
  'pdm.lock',
  // Python runners and the site hooks every interpreter start runs
  'conftest.py',
  'pytest.ini',
  'tox.ini',
  'noxfile.py',
  '.coveragerc',
  'sitecustomize.py',
  'usercustomize.py',
  '.taprc',
]);

const PATTERNS = [
  // jest.config.js, vitest.config.mts, vite.config.ts (vitest reads it), karma.conf.js, ...
  /^(jest|vitest|vite|mocha|ava|karma|babel|playwright|cypress|nyc|c8|tap|wdio|jasmine)\.(config|conf|workspace)\.[cm]?[jt]sx?$/,
  /^(jest|vitest|vite|mocha|ava|babel|playwright|nyc|c8|tap|jasmine)\.(config|conf|workspace)\.json$/,
  /^vitest\.workspace\.(json|[cm]?[jt]s)$/,
  /^\.(mocharc|c8rc|nycrc|babelrc|taprc|swcrc|jasmine)(\.[a-z]+)?$/,
  // setup files the runner configuration points at: jest.setup.js, setupTests.ts, test-setup.js
  /^(jest|vitest|mocha|ava|karma|test|tests)[._-]?(setup|teardown|env|globals?)(\.[a-z]+)?\.[cm]?[jt]sx?$/i,
  /^setup[._-]?tests?\.[cm]?[jt]sx?$/i,
  /\.pth$/,
  /\.snap$/,
];

/** Directories whose whole content is test infrastructure (jest mocks and snapshots). */
const DIRS = new Set(['__mocks__', '__snapshots__']);

/** Installed dependencies: restored wholesale from the env snapshot when the agent changed them. */
export const DEPENDENCY_DIRS = new Set(['node_modules', 'site-packages', 'dist-packages']);

export function infraKind(rel: string): InfraKind | undefined {
  const name = basename(rel);
  if (name === 'package.json') return 'package-json';
  if (name === 'pyproject.toml' || name === 'setup.cfg') return 'sections';
  if (FILES.has(name) || PATTERNS.some((p) => p.test(name))) return 'file';
  if (rel.split('/').some((seg) => DIRS.has(seg))) return 'file';
  return undefined;
}

/**
 * Files a suite command names directly: `./run-tests.sh`, `make test` (the Makefile),
 * `python tests/runner.py`. Restored whole; `known` says which paths exist at baseline (a token
 * naming a directory, e.g. `-s api`, is not restored: the agent's code lives there).
 */
export function commandFiles(task: Task, isFile: (rel: string) => boolean): string[] {
  const out = new Set<string>();
  for (const s of task.test_suites) {
    const tokens = s.command.split(/[\s;&|()<>'"=]+/).filter(Boolean);
    if (/^(make|gmake)\b/.test(s.command.trim()))
      for (const f of ['Makefile', 'makefile', 'GNUmakefile']) if (isFile(f)) out.add(f);
    if (/^just\b/.test(s.command.trim())) for (const f of ['justfile', 'Justfile']) out.add(f);
    for (const t of tokens) {
      const rel = t.replace(/^\.\//, '');
      if (!rel.startsWith('-') && !rel.startsWith('/') && !rel.includes('..') && isFile(rel))
        out.add(rel);
    }
  }
  return [...out].filter(isFile);
}
