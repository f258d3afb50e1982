// Gate 3, verification: with test_patch applied, some test fails at base_commit and passes with
// the golden patch. Computes fail_to_pass (fail at base, pass with the fix) and pass_to_pass
// (pass in both); --write records them in the task file, which is what trials are graded on.
import { InfraError } from '../util/errors.js';
import type { TestResult } from '../verify/types.js';
import {
  expectedReport,
  lastOutput,
  type SuiteRun,
  type Verification,
} from '../verify/verifier.js';
import type { GateContext } from './context.js';
import { fail, type GateOutcome, pass } from './types.js';

export interface TestLists {
  failToPass: string[];
  passToPass: string[];
  /** Passed at base, not with the golden patch: the PR broke or changed them; graded on neither. */
  brokenByGolden: string[];
  /** Fail (or never report) both at base and with the golden patch: graded on neither. */
  stillFailing: string[];
  /** Tests that did not pass at base (failed, or absent because their file did not load). */
  notPassingAtBase: number;
}

export function computeLists(
  base: Map<string, TestResult>,
  golden: Map<string, TestResult>,
): TestLists {
  const ids = [...new Set([...base.keys(), ...golden.keys()])].sort();
  const passed = (m: Map<string, TestResult>, id: string) => m.get(id)?.outcome === 'passed';
  const failed = (m: Map<string, TestResult>, id: string) =>
    m.get(id)?.outcome === 'failed' || !m.has(id);
  return {
    failToPass: ids.filter((id) => passed(golden, id) && !passed(base, id)),
    passToPass: ids.filter((id) => passed(golden, id) && passed(base, id)),
    brokenByGolden: ids.filter((id) => passed(base, id) && !passed(golden, id)),
    stillFailing: ids.filter((id) => failed(base, id) && failed(golden, id)),
    notPassingAtBase: ids.filter((id) => failed(base, id)).length,
  };
}

const sameList = (a: string[], b: string[]) =>
  a.length === b.length && [...a].sort().every((x, i) => x === [...b].sort()[i]);

/** Only the zero-test placeholder: the runner wrote a report, but it held no test. */
const noTests = (s: SuiteRun) =>
  s.format !== 'exit-code' && s.tests.every((t) => t.id === '(suite)' || t.id === '(crashed)');

// The runner stopped before writing its report: most often the code under test ended the
// process (a CLI whose own tests parse process.argv sees the runner's reporter options).
const NO_REPORT_FIX =
  "run the suite's command by hand in a checkout of base_commit with test_patch applied and see why the runner stops before writing its report. If the code under test exits the process (e.g. a command-line parser reading process.argv sees the runner's own --ci --json --outputFile options), narrow the suite command to the PR's test files, or give the reporter options through the runner's config or environment instead of its command line";

export function suiteProblem(v: Verification, when: string): GateOutcome | undefined {
  for (const s of v.suites) {
    switch (s.status) {
      case 'timed_out':
        return fail(
          `suite ${s.name} timed out ${when}`,
          'raise timeouts.verifier_sec, or narrow the suite command to the test files the PR touches',
          { problem: 'timed_out', suite: s.name },
        );
      case 'not_started':
        return fail(
          `suite ${s.name} could not start ${when} (exit ${s.exitCode}: the command was not found or cannot be executed); the runner's last output: ${lastOutput(s)}`,
          "the suite's command must exist in the prepared environment: install it with install_command, or call it as installed (npx jest, python3 -m pytest)",
          { problem: 'not_started', suite: s.name },
        );
      case 'no_report':
        return fail(
          `suite ${s.name} produced no report ${when} (expected ${expectedReport(s)}); the runner's last output: ${lastOutput(s)}`,
          NO_REPORT_FIX,
          { problem: 'no_report', suite: s.name },
        );
      case 'reported':
        if (noTests(s))
          return fail(
            `suite ${s.name} reported no tests ${when} (exit ${s.exitCode}): ${lastOutput(s, 3)}`,
            "check the suite's command, format and result_file: run the command by hand in a checkout of base_commit with test_patch applied",
            { problem: 'no_tests', suite: s.name },
          );
    }
  }
  return undefined;
}

/**
 * Suites that gave no report at base but report with the golden patch: a compiled suite whose
 * new tests do not build without the fix (a C test calling a function the PR adds). Their tests
 * do not pass at base, which is what fail_to_pass asks; a suite silent with the fix as well is
 * still a problem.
 */
export function silentAtBase(base: Verification, golden: Verification): string[] {
  return base.suites
    .filter((s) => s.status === 'no_report')
    .filter((s) => golden.suites.some((g) => g.name === s.name && g.status === 'reported'))
    .map((s) => s.name);
}

export const withoutSuites = (v: Verification, names: string[]): Verification => ({
  ...v,
  suites: v.suites.filter((s) => !names.includes(s.name)),
});

export async function verificationGate(ctx: GateContext): Promise<GateOutcome> {
  let base: Verification;
  try {
    [base] = await ctx.baseRuns(1);
  } catch (e) {
    if (!(e instanceof InfraError)) throw e;
    return fail(
      e.message,
      'regenerate test_patch from the PR commit against base_commit (nanobench task import)',
      { problem: 'test_patch' },
    );
  }
  const golden = await ctx.goldenRun();
  if (!golden.applied)
    return fail(
      `the golden patch does not apply at base_commit: ${golden.error}`,
      'regenerate ground_truth_patch from the PR commit against its first parent (nanobench task import --commit <PR commit>)',
      { problem: 'golden_patch' },
    );
  const silent = silentAtBase(base, golden.verification);
  const problem =
    suiteProblem(withoutSuites(base, silent), 'at base') ??
    suiteProblem(golden.verification, 'with the golden patch');
  if (problem) return problem;
  const lists = computeLists(base.outcomes, golden.verification.outcomes);
  const details = {
    fail_to_pass: lists.failToPass,
    pass_to_pass: lists.passToPass,
    broken_by_golden: lists.brokenByGolden,
    still_failing: lists.stillFailing,
  };
  if (lists.failToPass.length === 0) {
    if (lists.notPassingAtBase === 0)
      return fail(
        `no test fails at base_commit: all ${base.outcomes.size} tests pass without the fix, so none can tell the fix from no change`,
        "test_patch must add or change a test that fails at base_commit and passes with the PR (a regression test). If the PR's own tests pass at base, the fix is already in base_commit (is it the PR's first parent?) or the tests do not exercise it: add such a test or pick another PR",
        { ...details, problem: 'no_failing_test' },
      );
    const example = lists.stillFailing[0];
    const msg = golden.verification.outcomes.get(example)?.message?.split('\n')[0];
    return fail(
      `the golden patch makes no failing test pass: ${lists.stillFailing.length} test(s) fail at base and still fail with it (e.g. ${example}${msg ? `: ${msg}` : ''})`,
      "ground_truth_patch must be the PR's complete non-test change: re-import the PR commit (nanobench task import); check that install_command builds what the tests import and that the suites run the PR's tests",
      { ...details, problem: 'golden_fails' },
    );
  }
  const counts = `${lists.failToPass.length} fail_to_pass, ${lists.passToPass.length} pass_to_pass${lists.brokenByGolden.length ? `, ${lists.brokenByGolden.length} broken by the PR (not graded)` : ''}${silent.length ? ` (suite ${silent.join(', ')} gave no report at base: the PR's tests do not build without the fix, so its tests count as failing there)` : ''}`;
  const t = ctx.task;
  const matches =
    sameList(t.fail_to_pass, lists.failToPass) && sameList(t.pass_to_pass, lists.passToPass);
  if (ctx.opts.write && !matches) {
    await ctx.recordLists(lists.failToPass, lists.passToPass);
    return pass(`${counts}; written to the task file`, { ...details, recorded: 'written' });
  }
  if (matches)
    return pass(`${counts}; the task file records the same`, { ...details, recorded: 'match' });
  if (t.fail_to_pass.length === 0)
    return fail(
      `${counts} computed, but the task file records no fail_to_pass: trials cannot be graded`,
      `record the computed lists: nanobench validate --write ${ctx.file}`,
      { ...details, recorded: 'none' },
    );
  // The recorded lists are what trials are graded on; the controls gate judges them.
  return pass(
    `${counts}; the task file records different lists (the controls gate grades with those; nanobench validate --write records these)`,
    { ...details, recorded: 'differs' },
  );
}
