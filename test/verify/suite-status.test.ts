// Issue 11 (1): a suite run carries a status, and a suite that produced no report is reported as
// exactly that, by the verifier (missing targets) and by the verification gate. The real case:
// a command-line parser under test reads process.argv, sees jest's own --ci --json --outputFile
// options and calls process.exit, so jest never writes its report (fixtures jest29/30-no-report).
import { describe, expect, it } from 'vitest';
import type { GateContext } from '../../src/gates/context.js';
import { flakinessGate } from '../../src/gates/flakiness.js';
import { verificationGate } from '../../src/gates/verification.js';
import type { TestSuite } from '../../src/task/schema.js';
import {
  describeStatus,
  outcomesOf,
  type SuiteRun,
  suiteRunFrom,
  targetOutcome,
  type Verification,
} from '../../src/verify/verifier.js';
import { readFixture } from '../helpers/parser-fixtures.js';

const JEST: TestSuite = {
  name: 'js',
  language: 'javascript',
  command: 'npx jest --ci --json --outputFile=results.json --runInBand test/cli.test.js',
  format: 'jest-json',
  result_file: 'results.json',
  test_files: ['test/'],
};

interface Over {
  exitCode?: number | null;
  stdout?: string;
  stderr?: string;
  timedOut?: boolean;
  resultFile?: string;
}

function fromFixture(dir: string, suite: TestSuite = JEST, over: Over = {}): SuiteRun {
  const raw = readFixture(dir);
  const r = {
    stdout: over.stdout ?? raw.stdout,
    stderr: over.stderr ?? raw.stderr,
    exitCode: over.exitCode === undefined ? raw.exitCode : over.exitCode,
    timedOut: over.timedOut ?? false,
    durationMs: 5,
  };
  const resultFile = 'resultFile' in over ? over.resultFile : raw.resultFile;
  return suiteRunFrom(suite, r, resultFile, raw.workspace, 60);
}

const verification = (...suites: SuiteRun[]): Verification => ({
  suites,
  outcomes: outcomesOf(suites),
  durationMs: 5,
});

describe('suite status', () => {
  it.each(['jest29', 'jest30'])('%s: the process exited before the report: no_report', (v) => {
    const s = fromFixture(`jest-json/${v}-no-report`);
    expect(s.status).toBe('no_report');
    expect(s.noReport).toBe('the file was not written');
    expect(describeStatus(s)).toBe(
      'produced no report (expected results.json / jest-json: the file was not written)',
    );
  });

  it('an empty or unreadable result file is no report either, and says which', () => {
    const empty = fromFixture('jest-json/jest29-no-report', JEST, { resultFile: ' \n' });
    expect([empty.status, empty.noReport]).toEqual(['no_report', 'the file is empty']);
    const cut = fromFixture('jest-json/jest29-no-report', JEST, { resultFile: '{"testRes' });
    expect([cut.status, cut.noReport]).toEqual(['no_report', 'the file could not be read']);
  });

  it('a real report is reported, whatever the exit code', () => {
    expect(fromFixture('jest-json/jest29').status).toBe('reported');
    // A runner may exit 127 for its own reasons; a report was read, so it started.
    expect(fromFixture('jest-json/jest29', JEST, { exitCode: 127 }).status).toBe('reported');
  });

  it('exit 127/126 without a report: the command could not start', () => {
    for (const exitCode of [127, 126]) {
      const s = fromFixture('jest-json/jest29-no-report', JEST, {
        exitCode,
        stderr: '/bin/sh: 1: jest: not found\n',
      });
      expect(s.status).toBe('not_started');
      expect(describeStatus(s)).toMatch(/^could not start \(exit 12[67]/);
    }
  });

  it('a timeout is timed_out, even with a partial report', () => {
    const s = fromFixture('jest-json/jest29', JEST, { timedOut: true, exitCode: null });
    expect(s.status).toBe('timed_out');
    expect(s.fallback).toMatch(/timed out after 60s/);
  });

  it('formats without a result file: no recognisable output is no_report', () => {
    const tap: TestSuite = { ...JEST, command: 'npx mocha --reporter tap', format: 'tap' };
    delete tap.result_file;
    const s = fromFixture('tap/mocha-load-error', tap);
    expect(s.status).toBe('no_report');
    expect(describeStatus(s)).toBe('produced no report (expected tap output)');
  });

  it("a target in a suite without a report fails, saying so, with the runner's output", () => {
    const v = verification(fromFixture('jest-json/jest29-no-report'));
    const t = targetOutcome(v, 'js::test/cli.test.js > defaults to the process arguments');
    expect(t.passed).toBe(false);
    expect(t.message).toMatch(
      /^its suite produced no report \(expected results.json \/ jest-json: the file was not written\)\n/,
    );
    expect(t.message).toContain('process.exit called with "2"');
  });
});

describe('verification gate on a suite without a report', () => {
  const task = { fail_to_pass: [], pass_to_pass: [] };
  const gate = (base: Verification, golden: Verification) =>
    verificationGate({
      baseRuns: async () => [base],
      goldenRun: async () => ({ applied: true, verification: golden }),
      task,
      opts: { write: false },
      file: 'task.json',
    } as unknown as GateContext);

  it("names the missing report and the runner's last output, not the golden patch", async () => {
    const noReport = verification(fromFixture('jest-json/jest29-no-report'));
    const r = await gate(noReport, noReport);
    expect(r.status).toBe('fail');
    if (r.status !== 'fail') return;
    expect(r.reason).toMatch(
      /^suite js produced no report at base \(expected results.json \/ jest-json: the file was not written\); the runner's last output: /,
    );
    expect(r.reason).toContain('process.exit called with "2"');
    expect(r.reason).not.toMatch(/golden patch/);
    expect(r.fix).toMatch(/narrow the suite command to the PR's test files/);
    expect(r.fix).toMatch(/reporter options through the runner's config or environment/);
    expect(r.fix).not.toMatch(/re-import/);
  });

  it('a report at base but none with the golden patch says "with the golden patch"', async () => {
    const r = await gate(
      verification(fromFixture('jest-json/jest29')),
      verification(fromFixture('jest-json/jest30-no-report')),
    );
    expect(r.status === 'fail' && r.reason).toMatch(
      /^suite js produced no report with the golden patch \(expected results.json/,
    );
  });

  it('a command that is not there: could not start', async () => {
    const missing = verification(
      fromFixture('jest-json/jest29-no-report', JEST, {
        exitCode: 127,
        stderr: '/bin/sh: 1: jest: not found\n',
      }),
    );
    const r = await gate(missing, missing);
    expect(r.status === 'fail' && r.reason).toBe(
      "suite js could not start at base (exit 127: the command was not found or cannot be executed); the runner's last output: /bin/sh: 1: jest: not found",
    );
    expect(r.status === 'fail' && r.fix).toMatch(/install_command/);
  });

  it('a report without tests: reported no tests (zero tests is never a pass)', async () => {
    const empty = verification(
      fromFixture('jest-json/jest29', JEST, { resultFile: '{"testResults": []}', stderr: '' }),
    );
    const r = await gate(empty, empty);
    expect(r.status === 'fail' && r.reason).toMatch(
      /^suite js reported no tests at base \(exit 1\)/,
    );
  });
});

describe('flakiness gate on runs that graded nothing', () => {
  it('three identical timed-out runs are not "stable": the gate fails and says why', async () => {
    const timedOut = verification(fromFixture('jest-json/jest29-no-report'));
    timedOut.suites[0] = { ...timedOut.suites[0], status: 'timed_out', timedOut: true };
    const r = await flakinessGate({
      baseRuns: async () => [timedOut, timedOut, timedOut],
    } as unknown as GateContext);
    expect(r.status).toBe('fail');
    expect(r.reason).toMatch(/^cannot judge flakiness: suite js timed out in run 1 at base/);
  });
});
