// Parser behaviour the real fixtures do not show: fallbacks, normalisation, the XML reader,
// truncated or odd TAP, unittest quirks.
import { describe, expect, it } from 'vitest';
import { RESULT_FORMATS } from '../../src/task/schema.js';
import { dedupe, stripWorkspace } from '../../src/verify/parsers/common.js';
import { parseSuite } from '../../src/verify/parsers/index.js';
import { decodeEntities, parseXml } from '../../src/verify/parsers/junit-xml.js';
import type { ParseResult, RawSuiteOutput, TestOutcome } from '../../src/verify/types.js';

const WS = '/work/ws';
const raw = (over: Partial<RawSuiteOutput>): RawSuiteOutput => ({
  stdout: '',
  stderr: '',
  exitCode: 0,
  workspace: WS,
  ...over,
});
const outcomes = (r: ParseResult): Record<string, TestOutcome> =>
  Object.fromEntries(r.tests.map((t) => [t.id, t.outcome]));

describe('zero tests never pass', () => {
  const formats = RESULT_FORMATS.filter((f) => f !== 'exit-code');

  it.each(formats)('%s: unrecognisable output with exit code 0 is a failed "(suite)"', (format) => {
    const r = parseSuite(format, raw({ stdout: 'hello\nworld\n' }));
    expect(r.tests).toEqual([{ id: '(suite)', outcome: 'failed', message: 'hello\nworld' }]);
    expect(r.status).toBe('no_report');
    expect(r.fallback).toMatch(/^no tests were reported: expected .+ and found none/);
  });

  it.each(formats)(
    '%s: unrecognisable output with exit code 2 says what was expected',
    (format) => {
      const r = parseSuite(format, raw({ stdout: 'nope', exitCode: 2 }));
      expect(outcomes(r)).toEqual({ '(suite)': 'failed' });
      expect(r.fallback).toMatch(/^expected .+ but found none, so the exit code 2 was used/);
    },
  );

  it.each([
    ['node-tap', 'TAP version 13\n1..0\n# tests 0\n'],
    ['tap', 'TAP version 14\n1..0\n'],
    ['node-spec', 'ℹ tests 0\nℹ pass 0\n'],
    [
      'unittest',
      '\n----------------------------------------------------------------------\nRan 0 tests in 0.000s\n\nNO TESTS RAN\n',
    ],
    ['vitest-json', '{"testResults": []}'],
    ['jest-json', '{"numTotalTests": 0, "testResults": []}'],
    ['junit-xml', '<testsuites><testsuite name="x" tests="0"/></testsuites>'],
  ] as const)('%s: a real but empty run is failed with "no tests were reported"', (format, out) => {
    const r = parseSuite(format, raw({ stdout: out }));
    expect(outcomes(r)).toEqual({ '(suite)': 'failed' });
    expect(r.fallback).toBe('no tests were reported');
    expect(r.status).toBe('reported');
  });

  it('exit-code: one "(suite)" test decided by the exit code, always with a fallback note', () => {
    const ok = parseSuite('exit-code', raw({ stdout: 'fine' }));
    expect(ok.tests).toEqual([{ id: '(suite)', outcome: 'passed' }]);
    expect(ok.status).toBe('reported'); // the exit code is its report
    expect(ok.fallback).toMatch(/exit-code/);
    const bad = parseSuite('exit-code', raw({ stderr: `boom in ${WS}/src/a.js\n`, exitCode: 1 }));
    expect(bad.tests).toEqual([{ id: '(suite)', outcome: 'failed', message: 'boom in src/a.js' }]);
    const killed = parseSuite('exit-code', raw({ exitCode: null }));
    expect(killed.tests[0].outcome).toBe('failed');
    expect(killed.fallback).toMatch(/killed/);
  });

  it('tap: stderr is reported as "(crashed)" only when no test was parsed', () => {
    const crashed = parseSuite('tap', raw({ stderr: 'Segmentation fault\n', exitCode: 139 }));
    expect(crashed.tests).toEqual([
      { id: '(crashed)', outcome: 'failed', message: 'Segmentation fault' },
    ]);
    const some = parseSuite('tap', raw({ stdout: 'ok 1 - a\n', stderr: 'warning\n', exitCode: 1 }));
    expect(outcomes(some)).toEqual({ a: 'passed' }); // missing tests are the verifier's business
  });
});

describe('normalisation', () => {
  it('strips the workspace path, its file:// URL, with or without trailing slash', () => {
    for (const ws of [WS, `${WS}/`]) {
      expect(stripWorkspace(`at ${WS}/src/a.js:1:2`, ws)).toBe('at src/a.js:1:2');
      expect(stripWorkspace(`at file://${WS}/src/a.js:1:2`, ws)).toBe('at src/a.js:1:2');
      expect(stripWorkspace(`cwd: ${WS}\n`, ws)).toBe('cwd: .\n');
      expect(stripWorkspace(`${WS}2/src/a.js ${WS}.bak`, ws)).toBe(`${WS}2/src/a.js ${WS}.bak`);
    }
    expect(stripWorkspace('file:///tmp/my%20ws/a.js /tmp/my ws/b.js', '/tmp/my ws')).toBe(
      'a.js b.js',
    );
  });

  it('suffixes duplicate ids " #2", " #3" in order and keeps outcomes per id', () => {
    const tap = 'TAP version 13\nok 1 - a\nnot ok 2 - a\nok 3 - b\nok 4 - a # SKIP\n1..4\n';
    const r = parseSuite('tap', raw({ stdout: tap }));
    expect(r.tests.map((t) => [t.id, t.outcome])).toEqual([
      ['a', 'passed'],
      ['a #2', 'failed'],
      ['b', 'passed'],
      ['a #3', 'skipped'],
    ]);
    expect(
      dedupe([
        { id: 'x', outcome: 'passed' },
        { id: 'x #2', outcome: 'passed' },
        { id: 'x', outcome: 'failed' },
      ]).map((t) => t.id),
    ).toEqual(['x', 'x #2', 'x #3']);
  });

  it('makes vitest/jest file paths relative in ids', () => {
    const report = {
      testResults: [
        {
          name: `${WS}/a.test.ts`,
          status: 'passed',
          assertionResults: [
            { ancestorTitles: ['s'], title: 't', status: 'passed', failureMessages: [] },
          ],
        },
      ],
    };
    const r = parseSuite('vitest-json', raw({ resultFile: JSON.stringify(report) }));
    expect(outcomes(r)).toEqual({ 'a.test.ts > s > t': 'passed' });
  });
});

describe('junit XML reader', () => {
  it('decodes the five entities and numeric references, leaving unknown ones', () => {
    expect(decodeEntities('&lt;a&gt; &amp; &quot;q&quot; &apos;s&apos; &#65;&#x42; &nbsp;')).toBe(
      `<a> & "q" 's' AB &nbsp;`,
    );
  });

  it('reads attributes, CDATA, comments, PIs and a DOCTYPE', () => {
    const xml = `<?xml version="1.0"?><!DOCTYPE x><!-- <testcase name="no"/> -->
<testsuites><testsuite><testcase classname='c' name="a &gt; b" weird="x>y"/>
<testcase name="t2" classname=""><failure message="m &amp; n"><![CDATA[if (a < b && c) ]] >]]>&amp;</failure></testcase>
<testcase classname="c" name="s"><skipped/></testcase></testsuite></testsuites>`;
    const root = parseXml(xml);
    expect(root.children[0].name).toBe('testsuites');
    const r = parseSuite('junit-xml', raw({ resultFile: xml, exitCode: 1 }));
    expect(r.tests).toEqual([
      { id: 'c::a > b', outcome: 'passed' },
      { id: 't2', outcome: 'failed', message: 'm & n\nif (a < b && c) ]] >&' },
      { id: 'c::s', outcome: 'skipped' },
    ]);
  });

  it('still reads the test cases of a truncated file', () => {
    const xml =
      '<testsuite><testcase classname="c" name="a"/><testcase classname="c" name="b"><failure>boo';
    const r = parseSuite('junit-xml', raw({ resultFile: xml, exitCode: 1 }));
    expect(r.tests).toEqual([
      { id: 'c::a', outcome: 'passed' },
      { id: 'c::b', outcome: 'failed', message: 'boo' },
    ]);
  });
});

describe('TAP structure', () => {
  it('names orphaned subtests of a cut-off run by their "# Subtest:" headers', () => {
    const tap = [
      'TAP version 13',
      '# Subtest: outer',
      '    # Subtest: inner',
      '    ok 1 - inner',
      '    # Subtest: next',
      '    not ok 2 - next',
    ].join('\n');
    const r = parseSuite('node-tap', raw({ stdout: tap, exitCode: null }));
    expect(outcomes(r)).toEqual({ 'outer > inner': 'passed', 'outer > next': 'failed' });
  });

  it('a run cut off inside a node-tap subtest: its assertions make it a failed test', () => {
    const tap = [
      'TAP version 14',
      '# Subtest: test/a.test.js',
      '    # Subtest: sums',
      '        ok 1 - should be equal',
      '        not ok 2 - should be equal',
      '          ---',
      '          diff: -5 +4',
      '          ...',
      '        ok 3 - should be equal',
    ].join('\n');
    const r = parseSuite('tap', raw({ stdout: tap, exitCode: null }));
    expect(r.tests).toEqual([
      {
        id: 'test/a.test.js > sums',
        outcome: 'failed',
        message: 'the run ended inside this test\n\nshould be equal\ndiff: -5 +4',
      },
    ]);
  });

  it('node-tap: a test of skipped assertions only is skipped, an empty one passes', () => {
    const tap = [
      'TAP version 14',
      '# Subtest: test/a.test.js',
      '    # Subtest: later',
      '        ok 1 - should be equal # SKIP',
      '        1..1',
      '    ok 1 - later',
      '    # Subtest: empty',
      '        1..0',
      '    ok 2 - empty',
      '    1..2',
      'ok 1 - test/a.test.js',
    ].join('\n');
    expect(outcomes(parseSuite('tap', raw({ stdout: tap })))).toEqual({
      'test/a.test.js > later': 'skipped',
      'test/a.test.js > empty': 'passed',
    });
  });

  it('tape: a comment names the points after it; a comment with no points is no test', () => {
    const tap = [
      'TAP version 13',
      '# adds',
      'ok 1 should be equal',
      'ok 2 should be equal',
      '# SKIP later',
      '# subtracts',
      'ok 3 should be equal',
      'not ok 4 should be equal',
      '# adds',
      'ok 5 should be equal',
      '',
      '1..5',
      '# tests 5',
      '# pass  4',
      '# fail  1',
    ].join('\n');
    const r = parseSuite('tap', raw({ stdout: tap, exitCode: 1 }));
    expect(r.tests).toEqual([
      { id: 'adds', outcome: 'passed' },
      { id: 'subtracts', outcome: 'failed', message: 'should be equal' },
      { id: 'adds #2', outcome: 'passed' },
    ]);
  });

  it('points before any comment stay one test each (mocha), comments after them change nothing', () => {
    const tap = 'ok 1 a b\nnot ok 2 a c\n# tests 2\n# pass 1\n1..2\n';
    const r = parseSuite('tap', raw({ stdout: tap, exitCode: 1 }));
    expect(outcomes(r)).toEqual({ 'a b': 'passed', 'a c': 'failed' });
  });

  it('unescapes "\\#" and "\\\\", treats "# TODO" on a failure as skipped, keeps spaces', () => {
    const tap =
      'TAP version 13\nok 1 - a \\# b \\\\ c\nnot ok 2 - later # TODO not yet\nok 3 -   padded  \n1..3\n';
    const r = parseSuite('tap', raw({ stdout: tap }));
    expect(outcomes(r)).toEqual({
      'a # b \\ c': 'passed',
      later: 'skipped',
      '  padded  ': 'passed',
    });
  });
});

describe('node-spec colours', () => {
  it('reads FORCE_COLOR output and drops colour codes from messages', () => {
    const e = String.fromCharCode(27);
    const out = `${e}[32m\u2714 a ${e}[90m(1.5ms)${e}[39m\n${e}[31m\u2716 b (2ms)${e}[39m\n  ${e}[31mError: red${e}[39m\n`;
    const r = parseSuite('node-spec', raw({ stdout: out, exitCode: 1 }));
    expect(r.tests).toEqual([
      { id: 'a', outcome: 'passed' },
      { id: 'b', outcome: 'failed', message: 'Error: red' },
    ]);
  });
});

describe('unittest quirks', () => {
  it("finds the outcome after a docstring line or the test's own output", () => {
    const err = [
      'test_a (m.C.test_a)',
      'Docstring here. ... ok',
      'test_b (m.C.test_b) ... printed by the test',
      'FAIL',
      'test_c (m.C.test_c) ... ',
      '',
      '======================================================================',
      'FAIL: test_b (m.C.test_b)',
      '----------------------------------------------------------------------',
      'AssertionError: nope',
      '',
      '----------------------------------------------------------------------',
      'Ran 3 tests in 0.001s',
    ].join('\n');
    const r = parseSuite('unittest', raw({ stderr: err, exitCode: 1 }));
    expect(outcomes(r)).toEqual({
      'm.C.test_a': 'passed',
      'm.C.test_b': 'failed',
      'm.C.test_c': 'failed',
    });
    expect(r.tests[1].message).toBe('FAIL: test_b (m.C.test_b)\nAssertionError: nope');
    expect(r.tests[2].message).toMatch(/no result was printed/);
  });
});
