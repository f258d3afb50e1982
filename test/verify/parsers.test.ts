// The parsers against real runner output (test/fixtures/parsers, see its README).
import { describe, expect, it } from 'vitest';
import { RESULT_FORMATS, type ResultFormat } from '../../src/task/schema.js';
import { parsers, parseSuite } from '../../src/verify/parsers/index.js';
import type { ParseResult, RawSuiteOutput, TestOutcome } from '../../src/verify/types.js';
import { readFixture as fixture } from '../helpers/parser-fixtures.js';

function run(format: ResultFormat, dir: string = format): { r: ParseResult; raw: RawSuiteOutput } {
  const raw = fixture(dir);
  return { r: parseSuite(format, raw), raw };
}

function outcomes(r: ParseResult): Record<string, TestOutcome> {
  return Object.fromEntries(r.tests.map((t) => [t.id, t.outcome]));
}

function message(r: ParseResult, id: string): string {
  return r.tests.find((t) => t.id === id)?.message ?? '';
}

/** Every parse of real output: reported, per-test results, no fallback, no workspace path left. */
function expectClean(r: ParseResult, raw: RawSuiteOutput) {
  expect(r.status).toBe('reported');
  expect(r.fallback).toBeUndefined();
  for (const t of r.tests) {
    expect(t.id).not.toContain(raw.workspace);
    expect(t.message ?? '').not.toContain(raw.workspace);
  }
  for (const e of r.fileErrors) {
    expect(e.file).not.toContain(raw.workspace);
    expect(e.message).not.toContain(raw.workspace);
  }
  expect(new Set(r.tests.map((t) => t.id)).size).toBe(r.tests.length);
}

const NODE_MAIN: Record<string, TestOutcome> = {
  'test/broken.test.mjs': 'failed',
  'slugify > lowercases': 'passed',
  'slugify > collapses dashes': 'failed',
  'slugify > unicode > keeps accents': 'failed',
  'slugify > unicode > drops emoji': 'skipped',
  'top level passes': 'passed',
  'todo later': 'skipped',
  'test/syntax.test.mjs': 'failed',
};

const NODE_NAMES: Record<string, TestOutcome> = {
  'dup > same': 'passed',
  'dup > same #2': 'failed',
  '  leading spaces': 'passed',
  'hash # in name \\ backslash': 'passed',
  'nul\u0000byte': 'passed',
  'failing todo': 'skipped',
  'parent > child ok': 'passed',
  'parent > child bad': 'failed',
};

const NODE_HOOKS: Record<string, TestOutcome> = {
  'with hook > a': 'failed',
  'parent throws after children > child': 'passed',
  'parent throws after children': 'failed',
};

describe.each([
  ['node-tap', '20'],
  ['node-tap', '22'],
  ['node-spec', '20'],
  ['node-spec', '22'],
  ['tap', '22'], // node's TAP read by the generic TAP parser gives the same ids
] as const)('%s on node %s output', (format, version) => {
  const reporter = format === 'node-spec' ? 'node-spec' : 'node-tap';

  it('reports leaf tests with describe names joined by " > "', () => {
    const { r, raw } = run(format, `${reporter}/node${version}`);
    expectClean(r, raw);
    expect(outcomes(r)).toEqual(NODE_MAIN);
    expect(message(r, 'slugify > collapses dashes')).toContain("'a-b' !== 'a-b-'");
    expect(message(r, 'slugify > unicode > keeps accents')).toContain(
      'x.normalize is not a function',
    );
    expect(message(r, 'slugify > unicode > keeps accents')).toContain('TypeError');
    // A file that fails to load carries node's crash output, with the path made relative.
    expect(message(r, 'test/broken.test.mjs')).toContain(
      "Cannot find module 'test/missing-module.mjs' imported from test/broken.test.mjs",
    );
    expect(message(r, 'test/syntax.test.mjs')).toContain("SyntaxError: Unexpected token '='");
  });

  it('keeps odd names byte for byte and suffixes duplicates', () => {
    const { r, raw } = run(format, `${reporter}/node${version}-names`);
    expectClean(r, raw);
    // spec cannot tell an empty describe from a passing test; TAP marks it "type: 'suite'".
    const expected =
      reporter === 'node-spec' ? { ...NODE_NAMES, 'empty suite': 'passed' } : NODE_NAMES;
    expect(outcomes(r)).toEqual(expected);
    expect(message(r, 'dup > same #2')).toContain('second one fails');
    expect(message(r, 'dup > same')).toBe('');
    expect(message(r, 'parent > child bad')).toContain('foo is not a function');
  });

  it('keeps a failure of a parent whose children passed (hooks, throws after subtests)', () => {
    const { r, raw } = run(format, `${reporter}/node${version}-hooks`);
    expectClean(r, raw);
    expect(outcomes(r)).toEqual(NODE_HOOKS);
    expect(message(r, 'parent throws after children')).toContain('parent broke');
    expect(message(r, 'with hook > a')).toContain('cancelled');
  });
});

describe.each(['py3.10', 'py3.11', 'py3.13'])('unittest (%s)', (dir) => {
  it('reads module.Class.test ids, outcomes and the FAIL/ERROR blocks', () => {
    const { r, raw } = run('unittest', `unittest/${dir}`);
    expectClean(r, raw);
    const T = 'tests.test_tax.TaxTest';
    expect(outcomes(r)).toEqual({
      'tests.test_broken': 'failed',
      'tests.test_tax.OtherTest.test_ok': 'passed',
      [`${T}.test_expected_fail`]: 'skipped',
      [`${T}.test_missing_attr`]: 'failed',
      [`${T}.test_rate`]: 'passed',
      [`${T}.test_rounding`]: 'failed',
      [`${T}.test_skip`]: 'skipped',
      [`${T}.test_subtests`]: 'failed',
      [`${T}.test_unexpected_success`]: 'failed',
    });
    expect(message(r, 'tests.test_broken')).toContain(
      "ModuleNotFoundError: No module named 'tax.nothere'",
    );
    expect(message(r, 'tests.test_broken')).toContain('Traceback (most recent call last)');
    expect(message(r, `${T}.test_missing_attr`)).toContain(
      "AttributeError: 'function' object has no attribute 'missing_method'",
    );
    expect(message(r, `${T}.test_rounding`)).toContain('AssertionError: 0.03 != 0.02');
    expect(message(r, `${T}.test_rounding`)).toContain('File "tests/test_tax.py", line 10');
    expect(message(r, `${T}.test_subtests`)).toContain('(i=2)');
    expect(message(r, `${T}.test_unexpected_success`).toLowerCase()).toContain(
      'unexpected success',
    );
  });
});

describe('junit-xml', () => {
  it('pytest: classname::name, failures, errors, skips, a collection error', () => {
    const { r, raw } = run('junit-xml', 'junit-xml/pytest');
    expectClean(r, raw);
    expect(outcomes(r)).toEqual({
      'tests.test_import_error': 'failed',
      'tests.test_calc::test_add': 'passed',
      'tests.test_calc::test_add_wrong': 'failed',
      'tests.test_calc::test_uses_broken': 'failed',
      'tests.test_calc::test_skipped': 'skipped',
      'tests.test_calc::test_xfail': 'skipped',
      'tests.test_calc::test_param[1]': 'passed',
      'tests.test_calc::test_param[a b]': 'passed',
      'tests.test_calc.TestGroup::test_method': 'passed',
      'tests.test_calc.TestGroup::test_attr': 'failed',
    });
    expect(message(r, 'tests.test_calc::test_add_wrong')).toContain(
      'AssertionError: sum <&> wrong',
    );
    expect(message(r, 'tests.test_calc::test_uses_broken')).toContain(
      'RuntimeError: fixture exploded',
    );
    expect(message(r, 'tests.test_calc.TestGroup::test_attr')).toContain(
      "AttributeError: 'NoneType' object has no attribute 'strip'",
    );
    expect(message(r, 'tests.test_import_error')).toContain("No module named 'does_not_exist'");
    expect(message(r, 'tests.test_import_error')).toContain("'tests/test_import_error.py'");
  });

  it('xmlrunner: CDATA bodies and comments', () => {
    const { r, raw } = run('junit-xml', 'junit-xml/xmlrunner');
    expectClean(r, raw);
    const C = 'tests.test_tax.TaxTest';
    expect(outcomes(r)).toEqual({
      [`${C}::test_rate`]: 'passed',
      [`${C}::test_rounding`]: 'failed',
      [`${C}::test_subtests (i=2)`]: 'failed',
      [`${C}::test_missing_attr`]: 'failed',
      [`${C}::test_skip`]: 'skipped',
      [`${C}::test_expected_fail`]: 'skipped',
      [`${C}::test_unexpected_success`]: 'failed',
    });
    expect(message(r, `${C}::test_rounding`)).toContain('AssertionError: 0.03 != 0.02');
    expect(message(r, `${C}::test_missing_attr`)).toContain('rate.missing_method()');
  });

  it('vitest and jest-junit reports (a leading space in a classname is kept)', () => {
    const v = run('junit-xml', 'junit-xml/vitest');
    expectClean(v.r, v.raw);
    expect(outcomes(v.r)).toEqual({
      'src/broken.test.ts::src/broken.test.ts': 'failed',
      'src/sum.test.ts::sum > adds': 'passed',
      'src/sum.test.ts::sum > adds negatives': 'failed',
      'src/sum.test.ts::sum > nested > calls foo': 'failed',
      'src/sum.test.ts::sum > nested > skipped one': 'skipped',
      'src/sum.test.ts::sum > nested > todo one': 'skipped',
      'src/sum.test.ts::top level': 'passed',
    });
    expect(message(v.r, 'src/broken.test.ts::src/broken.test.ts')).toContain(
      "Cannot find module './does-not-exist' imported from src/broken.test.ts",
    );
    const j = run('junit-xml', 'junit-xml/jest-junit');
    expectClean(j.r, j.raw);
    expect(outcomes(j.r)[' top level:: top level']).toBe('passed');
    expect(message(j.r, 'sum nested calls foo::sum nested calls foo')).toContain(
      'TypeError: obj.foo is not a function',
    );
  });
});

describe('vitest-json and jest-json', () => {
  const SUM: Record<string, TestOutcome> = {
    'sum > adds': 'passed',
    'sum > adds negatives': 'failed',
    'sum > nested > calls foo': 'failed',
    'sum > nested > skipped one': 'skipped',
    'sum > nested > todo one': 'skipped',
    'top level': 'passed',
  };
  const withFile = (file: string) =>
    Object.fromEntries(Object.entries(SUM).map(([k, v]) => [`${file} > ${k}`, v]));

  it('vitest 4: file > describe > test, and a file that failed to load', () => {
    const { r, raw } = run('vitest-json', 'vitest-json/vitest4');
    expectClean(r, raw);
    expect(outcomes(r)).toEqual({
      ...withFile('src/sum.test.ts'),
      'src/broken.test.ts > (file failed to load)': 'failed',
    });
    expect(message(r, 'src/sum.test.ts > sum > nested > calls foo')).toContain(
      'TypeError: obj.foo is not a function',
    );
    expect(message(r, 'src/sum.test.ts > sum > adds negatives')).toContain('expected -3 to be -4');
    expect(message(r, 'src/broken.test.ts > (file failed to load)')).toContain(
      "Cannot find module './does-not-exist'",
    );
  });

  it('jest 29: the same ids, two files failing to load', () => {
    const { r, raw } = run('jest-json', 'jest-json/jest29');
    expectClean(r, raw);
    expect(outcomes(r)).toEqual({
      ...withFile('src/sum.test.js'),
      'src/broken.test.js > (file failed to load)': 'failed',
      'src/syntax.test.js > (file failed to load)': 'failed',
    });
    expect(message(r, 'src/sum.test.js > sum > nested > calls foo')).toContain(
      'TypeError: obj.foo is not a function',
    );
    expect(message(r, 'src/syntax.test.js > (file failed to load)')).toContain('SyntaxError');
  });

  it('reads the JSON from stdout when there is no result file', () => {
    const raw = fixture('jest-json/jest29');
    const fromStdout = parseSuite('jest-json', {
      ...raw,
      stdout: raw.resultFile!,
      resultFile: undefined,
    });
    expect(fromStdout).toEqual(parseSuite('jest-json', raw));
  });
});

describe('tap', () => {
  it('mocha (TAP 12 and 13): full titles, free-text and YAML diagnostics, skips', () => {
    for (const dir of ['tap/mocha', 'tap/mocha-tap13']) {
      const { r, raw } = run('tap', dir);
      expectClean(r, raw);
      expect(outcomes(r)).toEqual({
        'top level': 'passed',
        'sum adds': 'passed',
        'sum adds negatives': 'failed',
        'sum nested 1 calls foo': 'failed',
        'sum nested 1 skipped one': 'skipped',
        'sum nested 1 pending without body': 'skipped',
      });
      expect(message(r, 'sum adds negatives')).toContain('-3 !== -4');
      expect(message(r, 'sum nested 1 calls foo')).toContain(
        'TypeError: obj.foo is not a function',
      );
    }
  });

  it('node-tap 21 (TAP 14): subtests are the tests, their assertions roll up, "# time=" dropped', () => {
    const { r, raw } = run('tap', 'tap/tapjs');
    expectClean(r, raw);
    // "lowercases" is an assertion of slugify; "collapses", the skip and the todo of nested.
    expect(outcomes(r)).toEqual({
      'test/slug.test.mjs > slugify': 'passed',
      'test/slug.test.mjs > slugify > nested': 'failed',
      'test/slug.test.mjs > throws': 'failed',
    });
    expect(message(r, 'test/slug.test.mjs > slugify > nested')).toContain('collapses');
    expect(message(r, 'test/slug.test.mjs > slugify > nested')).toContain('+a-b');
    expect(message(r, 'test/slug.test.mjs > throws')).toContain('o.foo is not a function');
  });

  it('mocha failing to load a file: stderr becomes the failed "(crashed)" test', () => {
    const { r } = run('tap', 'tap/mocha-load-error');
    expect(outcomes(r)).toEqual({ '(crashed)': 'failed' });
    expect(message(r, '(crashed)')).toContain("Cannot find module './does-not-exist'");
    expect(message(r, '(crashed)')).toContain('- test/broken.spec.js');
    expect(r.fallback).toMatch(/no tests were reported/);
    expect(r.status).toBe('no_report');
  });
});

describe('TAP: the unit is a test or subtest, never an assertion', () => {
  const notOk = (raw: RawSuiteOutput) =>
    raw.stdout.split('\n').filter((l) => /^\s*not ok\b/.test(l));
  const failedIds = (r: ParseResult) =>
    r.tests.filter((t) => t.outcome === 'failed').map((t) => t.id);

  it.each(['tap16', 'tap21'])(
    'node-tap (%s): subtests are tests; assertions, in a subtest or in the file, roll up into it',
    (v) => {
      const { r, raw } = run('tap', `tap/${v}-units`);
      expectClean(r, raw);
      const F = 'test/units.test.js';
      expect(outcomes(r)).toEqual({
        [F]: 'passed', // its own assertion, "file-level assertion", passed
        [`${F} > math`]: 'failed', // 1 of its 3 assertions failed
        [`${F} > math > nested`]: 'failed',
        [`${F} > dup`]: 'passed',
        [`${F} > dup #2`]: 'failed',
        [`${F} > many passing assertions`]: 'passed', // 5 assertions, one test
        [`${F} > throws`]: 'failed',
        'test/crash.test.js': 'failed', // failed to load (its error is on stderr)
      });
      // Weighed by tests: 5 failed tests where the stream has 10 "not ok" lines.
      expect(failedIds(r)).toHaveLength(5);
      expect(notOk(raw)).toHaveLength(10);
      // The message is the failed assertions' (name and diagnostics), not the passing ones'.
      expect(message(r, `${F} > math`)).toMatch(/^should be equal\n/);
      expect(message(r, `${F} > math`)).toContain('-5\n');
      expect(message(r, `${F} > math`)).toContain('+4');
      expect(message(r, `${F} > math > nested`)).toContain('should be equivalent');
      expect(message(r, `${F} > math > nested`)).not.toContain('expect truthy value');
      expect(message(r, `${F} > dup #2`)).toContain('second dup fails');
      expect(message(r, `${F} > throws`)).toContain('o.foo is not a function');
      expect(r.fileErrors).toEqual([
        expect.objectContaining({
          file: 'test/crash.test.js',
          idPrefixes: ['test/crash.test.js > '],
        }),
      ]);
    },
  );

  it('tape 5: the assertions under a "# name" comment are one test', () => {
    const { r, raw } = run('tap', 'tap/tape5-units');
    expectClean(r, raw);
    expect(outcomes(r)).toEqual({
      math: 'failed',
      parent: 'passed',
      child: 'failed', // a nested t.test is printed as a test of its own
      dup: 'passed',
      'dup #2': 'failed',
      'many passing assertions': 'passed',
      'TODO todo': 'skipped', // its failing assertion is "# TODO"
      throws: 'failed',
    });
    expect(failedIds(r)).toHaveLength(4);
    expect(notOk(raw)).toHaveLength(5);
    expect(message(r, 'math')).toMatch(/^should be strictly equal\noperator: equal\nexpected: 5/);
    expect(message(r, 'child')).toMatch(/^child compares\n/);
    expect(message(r, 'throws')).toContain('TypeError: o.foo is not a function');
    // The closing "# tests 14", "# pass 10", "# fail 4" comments are no tests, nor is a skipped
    // test, which tape prints as a comment only.
    expect(Object.keys(outcomes(r))).not.toContain('tests 14');
  });

  it('tape 5: a module that throws while loading kills the run: no report, stderr as "(crashed)"', () => {
    const { r } = run('tap', 'tap/tape5-crash');
    expect(r.status).toBe('no_report');
    expect(outcomes(r)).toEqual({ '(crashed)': 'failed' });
    expect(message(r, '(crashed)')).toContain('Error: config: cannot read defaults');
  });

  it('mocha: one point per test, as before (a failing assertion stops its test)', () => {
    const { r, raw } = run('tap', 'tap/mocha-units');
    expectClean(r, raw);
    expect(outcomes(r)).toEqual({
      'many passing assertions': 'passed',
      'math adds': 'failed',
      'math nested compares': 'failed',
      'dup same': 'passed',
      'dup same #2': 'failed',
    });
    expect(message(r, 'dup same #2')).toContain('second dup fails');
  });

  describe.each([
    ['node-tap', '20'],
    ['node-tap', '22'],
    ['tap', '22'],
  ] as const)('%s on node %s', (format, version) => {
    it('one point per test: several assertions in a test, subtests, duplicates, a crash', () => {
      const { r, raw } = run(format, `node-tap/node${version}-units`);
      expectClean(r, raw);
      expect(outcomes(r)).toEqual({
        math: 'failed',
        'parent > child': 'failed',
        dup: 'passed',
        'dup #2': 'failed',
        'many passing assertions': 'passed',
        'test/crash.test.mjs': 'failed',
      });
      expect(message(r, 'math')).toContain('4 !== 5');
      expect(message(r, 'test/crash.test.mjs')).toContain('Error: config: cannot read defaults');
    });
  });
});

describe('status: whether the runner produced a report', () => {
  it.each(['jest29', 'jest30'])(
    '%s exited by the code under test (process.exit) before writing its JSON report',
    (v) => {
      const { r } = run('jest-json', `jest-json/${v}-no-report`);
      expect(r.status).toBe('no_report');
      // Zero tests is never a pass: the suite is one failed "(suite)" with the runner's output.
      expect(outcomes(r)).toEqual({ '(suite)': 'failed' });
      expect(message(r, '(suite)')).toContain('process.exit called with "2"');
      expect(message(r, '(suite)')).toContain('Unknown option: --ci');
    },
  );

  it('an empty but real report is reported, with zero tests', () => {
    const r = parseSuite('jest-json', {
      stdout: '',
      stderr: '',
      exitCode: 1,
      workspace: '/w',
      resultFile: '{"numTotalTests": 0, "testResults": []}',
    });
    expect(r.status).toBe('reported');
    expect(outcomes(r)).toEqual({ '(suite)': 'failed' });
  });
});

describe('file errors: a test file that failed to load, for its tests that never reported', () => {
  const ERROR = 'Registry is not a constructor';
  const PY_ERROR = 'Registry.__init__() takes 1 positional argument but 2 were given';

  it.each([
    [
      'vitest-json',
      'vitest-json/vitest4-import-throws',
      'src/widget.test.ts',
      ['src/widget.test.ts > '],
      ERROR,
    ],
    [
      'jest-json',
      'jest-json/jest29-import-throws',
      'src/widget.test.js',
      ['src/widget.test.js > '],
      ERROR,
    ],
    [
      'jest-json',
      'jest-json/jest30-import-throws',
      'src/widget.test.js',
      ['src/widget.test.js > '],
      ERROR,
    ],
    [
      'junit-xml',
      'junit-xml/pytest7-import-throws',
      'tests.test_widget',
      ['tests.test_widget::', 'tests.test_widget.'],
      PY_ERROR,
    ],
    [
      'unittest',
      'unittest/py3.11-import-throws',
      'tests.test_widget',
      ['tests.test_widget.'],
      PY_ERROR,
    ],
    ['node-tap', 'node-tap/node20-import-throws', 'test/widget.test.mjs', [], ERROR],
    ['node-tap', 'node-tap/node22-import-throws', 'test/widget.test.mjs', [], ERROR],
    ['node-spec', 'node-spec/node22-import-throws', 'test/widget.test.mjs', [], ERROR],
    // the tap CLI prints the error itself on stderr only
    [
      'tap',
      'tap/tap21-import-throws',
      'test/widget.test.js',
      ['test/widget.test.js > '],
      'exitCode: 1',
    ],
  ] as const)('%s (%s): %s', (format, dir, file, idPrefixes, text) => {
    const { r, raw } = run(format, dir);
    expectClean(r, raw);
    expect(r.fileErrors).toHaveLength(1);
    expect(r.fileErrors[0]).toMatchObject({ file, idPrefixes });
    expect(r.fileErrors[0].message).toContain(text);
  });

  it.each([
    ['vitest-json', 'vitest-json/vitest4', ['src/broken.test.ts']],
    ['jest-json', 'jest-json/jest29', ['src/broken.test.js', 'src/syntax.test.js']],
    ['junit-xml', 'junit-xml/pytest', ['tests.test_import_error']],
    ['junit-xml', 'junit-xml/vitest', ['src/broken.test.ts']],
    ['unittest', 'unittest/py3.10', ['tests.test_broken']],
    ['unittest', 'unittest/py3.13', ['tests.test_broken']],
    ['node-tap', 'node-tap/node20', ['test/broken.test.mjs', 'test/syntax.test.mjs']],
    ['node-spec', 'node-spec/node22', ['test/broken.test.mjs', 'test/syntax.test.mjs']],
    ['tap', 'tap/tapjs', []],
    ['tap', 'tap/mocha', []],
    ['junit-xml', 'junit-xml/jest-junit', []],
  ] as const)(
    '%s (%s): the earlier fixtures name exactly their broken files',
    (format, dir, files) => {
      const { r } = run(format, dir);
      expect(r.fileErrors.map((e) => e.file).sort()).toEqual([...files].sort());
    },
  );
});

it('has a parser for every result format', () => {
  expect(Object.keys(parsers).sort()).toEqual([...RESULT_FORMATS].sort());
});
