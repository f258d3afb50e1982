// Issue 11 (3): a test file whose import throws yields no per-test results; its target tests
// must carry the file's load error, so the same change gets the same label whatever the runner.
// The change: a module builds `new Registry()` at import, and Registry became an arrow function
// ("TypeError: Registry is not a constructor"); in Python, Registry() lost its parameter
// ("Registry.__init__() takes 1 positional argument but 2 were given"). Real output of each
// runner is in test/fixtures/parsers/*/*-import-throws.
import { describe, expect, it } from 'vitest';
import { type ScoreInput, score } from '../../src/score/rules.js';
import type { TestSuite } from '../../src/task/schema.js';
import {
  loadErrorsFor,
  outcomesOf,
  suiteRunFrom,
  targetOutcome,
  type Verification,
} from '../../src/verify/verifier.js';
import { readFixture } from '../helpers/parser-fixtures.js';

const JS_ERROR = 'Registry is not a constructor';
const PY_ERROR = 'Registry.__init__() takes 1 positional argument but 2 were given';

interface Runner {
  dir: string;
  suite: Omit<TestSuite, 'test_files'>;
  /** The widget tests' ids, as the runner names them when the file loads. */
  targets: string[];
  /** A test of another file, which loaded. */
  other: string;
  error: string;
}

const js = (format: TestSuite['format'], result_file?: string) => ({
  name: 'js',
  language: 'javascript',
  command: 'runner',
  format,
  ...(result_file ? { result_file } : {}),
});
const py = (format: TestSuite['format'], result_file?: string) => ({
  ...js(format, result_file),
  name: 'py',
  language: 'python',
});
const widget = (prefix: string, sep = ' > ') =>
  ['renders its name', 'registers itself'].map((t) => `${prefix}Widget${sep}${t}`);

const RUNNERS: Record<string, Runner> = {
  'vitest 4': {
    dir: 'vitest-json/vitest4-import-throws',
    suite: js('vitest-json', 'results.json'),
    targets: widget('src/widget.test.ts > '),
    other: 'src/other.test.ts > adds',
    error: JS_ERROR,
  },
  'jest 29': {
    dir: 'jest-json/jest29-import-throws',
    suite: js('jest-json', 'results.json'),
    targets: widget('src/widget.test.js > '),
    other: 'src/other.test.js > adds',
    error: JS_ERROR,
  },
  'jest 30': {
    dir: 'jest-json/jest30-import-throws',
    suite: js('jest-json', 'results.json'),
    targets: widget('src/widget.test.js > '),
    other: 'src/other.test.js > adds',
    error: JS_ERROR,
  },
  'tap 21': {
    dir: 'tap/tap21-import-throws',
    suite: js('tap'),
    targets: widget('test/widget.test.js > '),
    other: 'test/other.test.js > adds',
    error: JS_ERROR,
  },
  'node 20 --test (TAP)': {
    dir: 'node-tap/node20-import-throws',
    suite: js('node-tap'),
    targets: widget(''),
    other: 'adds',
    error: JS_ERROR,
  },
  'node 22 --test (TAP)': {
    dir: 'node-tap/node22-import-throws',
    suite: js('node-tap'),
    targets: widget(''),
    other: 'adds',
    error: JS_ERROR,
  },
  'node 22 --test (spec)': {
    dir: 'node-spec/node22-import-throws',
    suite: js('node-spec'),
    targets: widget(''),
    other: 'adds',
    error: JS_ERROR,
  },
  'pytest 7.2 (JUnit XML)': {
    dir: 'junit-xml/pytest7-import-throws',
    suite: py('junit-xml', 'report.xml'),
    targets: ['test_renders_its_name', 'test_registers_itself'].map(
      (t) => `tests.test_widget.WidgetTest::${t}`,
    ),
    other: 'tests.test_other.OtherTest::test_adds', // never ran: pytest stops at the error
    error: PY_ERROR,
  },
  'unittest (Python 3.11)': {
    dir: 'unittest/py3.11-import-throws',
    suite: py('unittest'),
    targets: ['test_renders_its_name', 'test_registers_itself'].map(
      (t) => `tests.test_widget.WidgetTest.${t}`,
    ),
    other: 'tests.test_other.OtherTest.test_adds',
    error: PY_ERROR,
  },
};

function verification(r: Runner): Verification {
  const raw = readFixture(r.dir);
  const suite = { ...r.suite, test_files: [] } as TestSuite;
  const s = suiteRunFrom(
    suite,
    { ...raw, timedOut: false, durationMs: 1 },
    raw.resultFile,
    raw.workspace,
    60,
  );
  return { suites: [s], outcomes: outcomesOf([s]), durationMs: 1 };
}

/** What the trial lifecycle (src/run/trial.ts) gives the scorer. */
function scoreInput(v: Verification, r: Runner): ScoreInput {
  const target = (local: string) => {
    const id = `${r.suite.name}::${local}`;
    return { id, suite: r.suite.name, ...targetOutcome(v, id) };
  };
  return {
    mode: 'hinted',
    requiredFiles: ['lib/widget.js'],
    filesChanged: ['lib/widget.js'],
    agentExit: 'success',
    failToPass: r.targets.map(target),
    passToPass: [target(r.other)],
    suiteLanguages: { [r.suite.name]: r.suite.language },
    failureText: v.suites.map((s) => s.stderr).join('\n'),
    agentAddedLines: ['const Registry = () => ({ items: [] });'],
    existsAtBase: () => true,
  };
}

describe.each(Object.entries(RUNNERS))('a module that throws at import, under %s', (_n, r) => {
  it("its tests fail with the file's load error as their message", () => {
    const v = verification(r);
    for (const id of r.targets) {
      const t = targetOutcome(v, `${r.suite.name}::${id}`);
      expect(t.passed).toBe(false);
      expect(t.message).toMatch(/^it never reported: its test file failed to load\n/);
      expect(t.message).toContain(r.error);
    }
  });

  it('is labelled wrong_abstraction_layer, as under every other runner', () => {
    const v = verification(r);
    expect(score(scoreInput(v, r))).toMatchObject({
      label: 'wrong_abstraction_layer',
      confidenceLevel: '4',
    });
  });
});

describe('which load errors a missing test gets', () => {
  it("ids that name their file: only that file's error", () => {
    const v = verification(RUNNERS['vitest 4']);
    expect(loadErrorsFor(v.suites[0], 'src/widget.test.ts > Widget > new')).toHaveLength(1);
    // A test of a file that loaded, removed or renamed: no load error, today's message.
    expect(loadErrorsFor(v.suites[0], 'src/other.test.ts > gone')).toEqual([]);
    const t = targetOutcome(v, 'js::src/other.test.ts > gone');
    expect(t.message).toMatch(/^it never reported \(crashed, failed to load, or was removed\)/);
    expect(t.message).not.toContain(JS_ERROR);
  });

  it('Python modules: the module and its classes, not a module that shares the prefix', () => {
    const s = verification(RUNNERS['unittest (Python 3.11)']).suites[0];
    expect(loadErrorsFor(s, 'tests.test_widget.WidgetTest.test_x')).toHaveLength(1);
    expect(loadErrorsFor(s, 'tests.test_widget_extra.T.test_x')).toEqual([]);
    const p = verification(RUNNERS['pytest 7.2 (JUnit XML)']).suites[0];
    expect(loadErrorsFor(p, 'tests.test_widget::test_function')).toHaveLength(1);
    expect(loadErrorsFor(p, 'tests.test_other::test_adds')).toEqual([]);
  });

  it('node --test ids do not name their file: every load error of the suite', () => {
    const s = verification(RUNNERS['node 22 --test (TAP)']).suites[0];
    expect(loadErrorsFor(s, 'any > test')).toHaveLength(1);
  });
});
