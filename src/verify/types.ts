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

export interface ParseResult {
  tests: TestResult[];
  /** Set when the parser could not read per-test results and fell back to the exit code; says why. */
  fallback?: string;
}

export type Parser = (raw: RawSuiteOutput) => ParseResult;
