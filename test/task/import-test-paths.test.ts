// Issue 5: how `task import` splits a PR into golden patch and test_patch.
import { describe, expect, it } from 'vitest';
import { issueNumber } from '../../src/task/import.js';
import { isTestPath, languagesOf, testRoot } from '../../src/task/test-paths.js';

describe('isTestPath', () => {
  it.each([
    'test/truncate.test.js',
    'tests/test_invoice.py',
    'web/test/api.test.js',
    'api/tests/fixtures/data.json',
    'src/__tests__/a.ts',
    'src/__snapshots__/a.test.ts.snap',
    'spec/helpers.js',
    'src/util.test.ts',
    'src/util.spec.mjs',
    'lib/test_money.py',
    'lib/money_test.py',
    'app/tests.py',
    'conftest.py',
    'pkg/conftest.py',
    'jest.config.js',
    'vitest.config.mts',
    '.mocharc.yml',
    'pytest.ini',
    // Test infrastructure found in real PRs (issue 11: tox.ini landed in a golden patch).
    'tox.ini',
    'noxfile.py',
    '.coveragerc',
    '.nycrc.json',
    'jest.setup.ts',
  ])('%s is a test file', (p) => expect(isTestPath(p)).toBe(true));

  it.each([
    'src/truncate.js',
    'invoicing/invoice.py',
    'src/testing.js',
    'src/contest.py',
    'src/latest.ts',
    'docs/testing.md',
    'package.json',
    'scripts/setup.mjs',
    'src/attestation.py',
    'tsconfig.json',
    'setup.cfg',
    'pyproject.toml',
  ])('%s is not a test file', (p) => expect(isTestPath(p)).toBe(false));
});

describe('testRoot', () => {
  it('protects the outermost test directory, or the file itself among sources', () => {
    expect(testRoot('web/test/unit/a.test.js')).toBe('web/test/');
    expect(testRoot('tests/test_x.py')).toBe('tests/');
    expect(testRoot('src/__tests__/deep/a.ts')).toBe('src/__tests__/');
    expect(testRoot('src/a.test.js')).toBe('src/a.test.js');
  });
});

describe('languagesOf', () => {
  it('keeps the order of first appearance and ignores data files', () => {
    expect(languagesOf(['api/a.py', 'README.md', 'web/a.js', 'web/b.tsx', 'api/b.py'])).toEqual([
      'python',
      'javascript',
      'typescript',
    ]);
  });
});

describe('issueNumber: the issue a commit message says it fixes', () => {
  it.each([
    ['fix: round halves (fixes #12)', '12'],
    ['Resolves #3595.', '3595'],
    ['fix: #3360 wrong unit in the result', '3360'],
    ['feat: x\n\nCloses #7', '7'],
    ['fixed: #9', '9'],
  ])('%j -> %s', (m, n) => expect(issueNumber(m)).toBe(n));

  it.each(['fix: typo in #12 docs', 'see #12', 'refactor: prefix'])('%j -> none', (m) =>
    expect(issueNumber(m)).toBeUndefined(),
  );
});
