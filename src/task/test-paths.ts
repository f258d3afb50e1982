// Which files of a pull request are tests. `task import` splits a PR's diff with this: test
// files go to test_patch (applied by the verifier, never shown to the agent), everything else to
// the golden patch and required_files. The conventions are those of the JS/TS and Python
// ecosystems; a curator can always move a file by editing the task by hand.

/** Directory names whose whole contents are tests (fixtures and helpers included). */
const TEST_DIRS = new Set([
  'test',
  'tests',
  '__tests__',
  '__snapshots__',
  '__fixtures__',
  '__mocks__',
  'spec',
]);

/** Test runner configuration: test infrastructure, restored by the verifier like the tests. */
const TEST_CONFIG = [
  /^jest\.config\.[cm]?[jt]s(on)?$/,
  /^vitest\.(config|workspace)\.[cm]?[jt]s$/,
  /^\.mocharc(\.[a-z]+)?$/,
  /^\.taprc$/,
  /^karma\.conf\.[cm]?[jt]s$/,
  /^pytest\.ini$/,
  /^conftest\.py$/,
  /^tox\.ini$/,
  /^noxfile\.py$/,
  /^\.coveragerc$/,
  /^\.nycrc(\.[a-z]+)?$/,
  /^\.c8rc(\.[a-z]+)?$/,
  /^(jest|vitest)\.setup\.[cm]?[jt]s$/,
];

/**
 * True when `path` (repository-relative, "/"-separated) is a test file:
 * - any directory on the path is test/, tests/, __tests__/, __snapshots__/ or spec/;
 * - JS/TS: the name contains ".test." or ".spec." (foo.test.ts, bar.spec.mjs);
 * - Python: test_*.py, *_test.py, tests.py, conftest.py;
 * - test runner configuration: jest.config.*, vitest.config.*, .mocharc*, .taprc,
 *   karma.conf.*, pytest.ini, tox.ini, noxfile.py, coverage configs, jest/vitest setup files.
 */
export function isTestPath(path: string): boolean {
  const parts = path.split('/');
  const name = parts[parts.length - 1];
  if (parts.slice(0, -1).some((d) => TEST_DIRS.has(d))) return true;
  if (/\.(test|spec)\.[^/]+$/.test(name)) return true;
  if (/^test_.+\.py$/.test(name) || /.+_test\.py$/.test(name) || name === 'tests.py') return true;
  return TEST_CONFIG.some((re) => re.test(name));
}

/**
 * The directory the verifier should protect for a test file: the outermost test directory on its
 * path ("web/test/unit/a.js" -> "web/test/"), or the file itself when it lives among sources
 * ("src/a.test.js").
 */
export function testRoot(path: string): string {
  const parts = path.split('/');
  const i = parts.slice(0, -1).findIndex((d) => TEST_DIRS.has(d));
  return i >= 0 ? `${parts.slice(0, i + 1).join('/')}/` : path;
}

const LANGUAGES: Record<string, string> = {
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascript',
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'typescript',
  py: 'python',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  rb: 'ruby',
  php: 'php',
  cs: 'csharp',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  hpp: 'cpp',
  swift: 'swift',
  scala: 'scala',
  vue: 'vue',
  svelte: 'svelte',
};

/** Programming language of a file from its extension, or undefined for data, docs and config. */
export function languageOf(path: string): string | undefined {
  const m = /\.([A-Za-z0-9]+)$/.exec(path);
  return m ? LANGUAGES[m[1].toLowerCase()] : undefined;
}

/** Languages of a set of files, in order of first appearance. */
export function languagesOf(paths: string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    const l = languageOf(p);
    if (l && !out.includes(l)) out.push(l);
  }
  return out;
}
