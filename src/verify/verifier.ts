// The verifier: restore the tests, run every suite with a timeout in a clean environment,
// and turn runner output into per-test outcomes keyed "<suite>::<id>".
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ResolvedTask } from '../task/patches.js';
import type { ResultFormat, TestSuite } from '../task/schema.js';
import { testId } from '../task/schema.js';
import { InfraError } from '../util/errors.js';
import { type RunResult, run } from '../util/process.js';
import { resultFileIn } from './harden.js';
import { stripAnsi } from './parsers/common.js';
import { parseSuite } from './parsers/index.js';
import { restoreTests } from './restore.js';
import type { FileError, SuiteStatus, TestResult } from './types.js';

export interface SuiteRun {
  name: string;
  language: string;
  command: string;
  format: ResultFormat;
  /** The result file the suite declares (relative to the workspace). */
  resultFile?: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  stdout: string;
  stderr: string;
  status: SuiteStatus;
  /** For no_report with a result file: what became of it ("the file was not written"). */
  noReport?: string;
  tests: TestResult[];
  fileErrors: FileError[];
  fallback?: string;
}

export interface Verification {
  suites: SuiteRun[];
  /** Outcome per "<suite>::<id>". */
  outcomes: Map<string, TestResult>;
  durationMs: number;
}

/** Runs a command somewhere else (a sandbox); identity when absent. */
export type Wrap = (command: string, args: string[]) => { command: string; args: string[] };

/** Environment for test runs: nothing from the agent's or the user's shell leaks in. */
export function cleanTestEnv(home: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    LANG: 'C.UTF-8',
    TZ: 'UTC',
    CI: '1',
    NO_COLOR: '1',
    PYTHONDONTWRITEBYTECODE: '1',
  };
}

export async function runSuite(
  ws: string,
  suite: TestSuite,
  timeoutSec: number,
  home: string,
  wrap?: Wrap,
): Promise<SuiteRun> {
  // A stale or agent-written result file must never be read as this run's result.
  const resultPath = suite.result_file ? resultFileIn(ws, suite.result_file) : undefined;
  if (resultPath) rmSync(resultPath, { force: true });
  const sh = wrap?.('/bin/sh', ['-c', suite.command]) ?? {
    command: '/bin/sh',
    args: ['-c', suite.command],
  };
  const r = await run(sh.command, sh.args, {
    cwd: ws,
    env: cleanTestEnv(home),
    timeoutMs: timeoutSec * 1000,
  });
  const resultFile = resultPath && readResultFile(ws, suite.result_file!);
  return suiteRunFrom(suite, r, resultFile, ws, timeoutSec);
}

/**
 * The result file the suite wrote; undefined when there is none, or when it is a symlink that
 * leads outside the workspace (the tests run the agent's code: what it points at is not read).
 */
function readResultFile(ws: string, rel: string): string | undefined {
  try {
    const file = resultFileIn(ws, rel, true);
    return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  } catch (e) {
    if (e instanceof InfraError) return undefined;
    throw e;
  }
}

/** A suite's run read into tests, file errors and a status. */
export function suiteRunFrom(
  suite: TestSuite,
  r: Pick<RunResult, 'stdout' | 'stderr' | 'exitCode' | 'timedOut' | 'durationMs'>,
  resultFile: string | undefined,
  ws: string,
  timeoutSec: number,
): SuiteRun {
  const parsed = parseSuite(suite.format, {
    stdout: r.stdout,
    stderr: r.stderr,
    exitCode: r.exitCode,
    resultFile,
    workspace: ws,
  });
  // A shell that could not find or execute the command exits 127 or 126 and prints no report.
  let status: SuiteStatus = parsed.status;
  if (r.timedOut) status = 'timed_out';
  else if (status === 'no_report' && (r.exitCode === 127 || r.exitCode === 126))
    status = 'not_started';
  const run: SuiteRun = {
    name: suite.name,
    language: suite.language,
    command: suite.command,
    format: suite.format,
    exitCode: r.exitCode,
    timedOut: r.timedOut,
    durationMs: r.durationMs,
    stdout: r.stdout,
    stderr: r.stderr,
    status,
    tests: parsed.tests,
    fileErrors: parsed.fileErrors,
    fallback: r.timedOut
      ? `suite timed out after ${timeoutSec}s; unreported tests count as failed`
      : parsed.fallback,
  };
  if (suite.result_file) run.resultFile = suite.result_file;
  const missing = status === 'no_report' ? missingReport(suite, resultFile) : undefined;
  if (missing) run.noReport = missing;
  return run;
}

function missingReport(suite: TestSuite, resultFile: string | undefined): string | undefined {
  if (suite.result_file === undefined) return undefined;
  if (resultFile === undefined) return 'the file was not written';
  if (resultFile.trim() === '') return 'the file is empty';
  return 'the file could not be read';
}

/** The report a suite should have produced: "results.json / jest-json: the file was not written". */
export function expectedReport(s: SuiteRun): string {
  if (s.resultFile === undefined) return `${s.format} output`;
  return `${s.resultFile} / ${s.format}${s.noReport ? `: ${s.noReport}` : ''}`;
}

/** What the suite's status means, for messages: "produced no report (expected ...)". */
export function describeStatus(s: SuiteRun): string {
  switch (s.status) {
    case 'timed_out':
      return 'timed out';
    case 'not_started':
      return `could not start (exit ${s.exitCode}: the command was not found or cannot be executed)`;
    case 'no_report':
      return `produced no report (expected ${expectedReport(s)})`;
    case 'reported':
      return 'reported';
  }
}

/** The end of what the runner printed (stderr, else stdout), on one line. */
export function lastOutput(s: SuiteRun, lines = 10): string {
  const text = stripAnsi(s.stderr.trim() !== '' ? s.stderr : s.stdout);
  const tail = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '')
    .slice(-lines)
    .join(' | ');
  if (tail === '') return '(nothing)';
  return tail.length > 1500 ? `...${tail.slice(-1500)}` : tail;
}

/** Restore tests, apply test_patch, run all suites. Throws InfraError when the tests cannot be set up. */
export async function verify(
  ws: string,
  baselineTree: string,
  task: ResolvedTask,
  scratchDir: string,
  wrap?: Wrap,
): Promise<Verification> {
  const started = Date.now();
  await restoreTests(ws, baselineTree, task);
  // Always a fresh HOME: the agent could write into the scratch directory (user-site hooks,
  // ~/.npmrc) before the tests run with it.
  const home = join(scratchDir, 'verify-home');
  rmSync(home, { recursive: true, force: true });
  mkdirSync(home, { recursive: true });
  const suites: SuiteRun[] = [];
  // Suites share the verifier timeout budget.
  for (const suite of task.test_suites) {
    const left = Math.max(1, task.timeouts.verifier_sec - (Date.now() - started) / 1000);
    suites.push(await runSuite(ws, suite, left, home, wrap));
  }
  return { suites, outcomes: outcomesOf(suites), durationMs: Date.now() - started };
}

/**
 * A suite whose runner could not start (exit 126/127) graded nothing: the environment failed,
 * never the code under test. The error to raise for it, if any.
 */
export function deadSuiteError(v: Verification): InfraError | undefined {
  const dead = v.suites.find((x) => x.status === 'not_started');
  return dead
    ? new InfraError(
        'verify',
        `suite ${dead.name} could not start (exit ${dead.exitCode}: "${dead.command}" was not found or cannot be executed)`,
        'runner_not_started',
      )
    : undefined;
}

/** Every suite's tests by "<suite>::<id>". */
export function outcomesOf(suites: SuiteRun[]): Map<string, TestResult> {
  const outcomes = new Map<string, TestResult>();
  for (const s of suites) for (const t of s.tests) outcomes.set(testId(s.name, t.id), t);
  return outcomes;
}

/**
 * The load errors that explain why test `id` (without its suite prefix) did not report: those
 * of the file its id names, else those of files whose runner does not name files in ids.
 */
export function loadErrorsFor(s: SuiteRun, id: string): FileError[] {
  const own = s.fileErrors.filter((e) => e.idPrefixes.some((p) => id.startsWith(p)));
  return own.length > 0 ? own : s.fileErrors.filter((e) => e.idPrefixes.length === 0);
}

/**
 * A target test that never reported is a FAILED test, never a skipped one. Its message says
 * why, with its file's load error when the runner reported one, so the scoring rules see the
 * same evidence whatever the runner.
 */
export function targetOutcome(v: Verification, id: string): { passed: boolean; message?: string } {
  const t = v.outcomes.get(id);
  if (t) return { passed: t.outcome === 'passed', message: t.message };
  const suite = v.suites.find((s) => id.startsWith(`${s.name}::`));
  if (!suite) return { passed: false, message: 'it never reported: no suite of the task ran it' };
  const errors = loadErrorsFor(suite, id.slice(suite.name.length + 2));
  let why = 'it never reported (crashed, failed to load, or was removed)';
  if (suite.status !== 'reported') why = `its suite ${describeStatus(suite)}`;
  else if (errors.length > 0) why = 'it never reported: its test file failed to load';
  const parts = [why, ...errors.map((e) => `${e.file}: ${e.message}`), suite.stderr.slice(-2000)];
  return { passed: false, message: parts.join('\n') };
}
