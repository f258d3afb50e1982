// The verifier: restore the tests, run every suite with a timeout in a clean environment,
// and turn runner output into per-test outcomes keyed "<suite>::<id>".
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ResolvedTask } from '../task/patches.js';
import type { TestSuite } from '../task/schema.js';
import { testId } from '../task/schema.js';
import { run } from '../util/process.js';
import { parseSuite } from './parsers/index.js';
import { restoreTests } from './restore.js';
import type { TestResult } from './types.js';

export interface SuiteRun {
  name: string;
  language: string;
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  stdout: string;
  stderr: string;
  tests: TestResult[];
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
  const resultPath = suite.result_file ? join(ws, suite.result_file) : undefined;
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
  const resultFile =
    resultPath && existsSync(resultPath) ? readFileSync(resultPath, 'utf8') : undefined;
  const parsed = parseSuite(suite.format, {
    stdout: r.stdout,
    stderr: r.stderr,
    exitCode: r.exitCode,
    resultFile,
    workspace: ws,
  });
  return {
    name: suite.name,
    language: suite.language,
    command: suite.command,
    exitCode: r.exitCode,
    timedOut: r.timedOut,
    durationMs: r.durationMs,
    stdout: r.stdout,
    stderr: r.stderr,
    tests: parsed.tests,
    fallback: r.timedOut
      ? `suite timed out after ${timeoutSec}s; unreported tests count as failed`
      : parsed.fallback,
  };
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
  const outcomes = new Map<string, TestResult>();
  for (const s of suites) for (const t of s.tests) outcomes.set(testId(s.name, t.id), t);
  return { suites, outcomes, durationMs: Date.now() - started };
}

/** A target test that never reported is a FAILED test, never a skipped one. */
export function targetOutcome(v: Verification, id: string): { passed: boolean; message?: string } {
  const t = v.outcomes.get(id);
  if (!t) {
    const suite = v.suites.find((s) => id.startsWith(`${s.name}::`));
    const why = suite?.timedOut
      ? 'its suite timed out'
      : 'it never reported (crashed, failed to load, or was removed)';
    return { passed: false, message: `${why}\n${suite?.stderr.slice(-2000) ?? ''}` };
  }
  return { passed: t.outcome === 'passed', message: t.message };
}
