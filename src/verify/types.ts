// Shared shapes of test execution and parsing.

export type TestOutcome = 'passed' | 'failed' | 'skipped';

export interface TestResult {
  /** The id as the runner names it, normalised (no absolute checkout path). Without the suite prefix. */
  id: string;
  outcome: TestOutcome;
  /** Failure message and stack, when the runner gives one. */
  message?: string;
}

export interface RawSuiteOutput {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  /** Contents of the suite's result_file, when it declares one and the file exists. */
  resultFile?: string;
  /** Absolute path of the workspace, so parsers can strip it from test names. */
  workspace: string;
}

/** Whether the runner's output held a report the parser could read (possibly with zero tests). */
export type ReportStatus = 'reported' | 'no_report';

/**
 * What became of one suite run: `reported` (a report was read, possibly with zero tests),
 * `no_report` (the declared result file is missing, empty or unreadable, or the output held
 * nothing recognisable), `not_started` (the shell could not find or execute the command: exit
 * 127/126, no report), `timed_out`.
 */
export type SuiteStatus = ReportStatus | 'not_started' | 'timed_out';

/** A test file (or Python module) that failed to load, so none of its tests reported. */
export interface FileError {
  /** The file or module, normalised like ids. */
  file: string;
  message: string;
  /**
   * Ids of this file's tests start with one of these (vitest "src/a.test.ts > ", unittest
   * "tests.test_a."). Empty when the runner's ids do not name their file (node --test): the
   * error then belongs to every test of the suite that did not report.
   */
  idPrefixes: string[];
}

export interface ParseResult {
  status: ReportStatus;
  tests: TestResult[];
  fileErrors: FileError[];
  /** Set when the parser could not read per-test results and fell back to the exit code; says why. */
  fallback?: string;
}

export type Parser = (raw: RawSuiteOutput) => ParseResult;
