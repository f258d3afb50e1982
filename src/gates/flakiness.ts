// Gate 4, flakiness: the base state (test_patch applied) gives the same outcome for every test on
// three consecutive runs (whitepaper §7). Order and timings are ignored; a test that reports in
// one run and not in another differs. The runs share one workspace, so tests that depend on
// state left by an earlier run are caught along with randomness and clocks.
import { InfraError } from '../util/errors.js';
import type { TestResult } from '../verify/types.js';
import type { GateContext } from './context.js';
import { fail, type GateOutcome, pass } from './types.js';
import { suiteProblem, withoutSuites } from './verification.js';

export const FLAKINESS_RUNS = 3;

export interface Unstable {
  id: string;
  /** Outcome per run: passed | failed | skipped | missing. */
  outcomes: string[];
}

export function unstableTests(runs: Map<string, TestResult>[]): Unstable[] {
  const ids = [...new Set(runs.flatMap((r) => [...r.keys()]))].sort();
  return ids
    .map((id) => ({ id, outcomes: runs.map((r) => r.get(id)?.outcome ?? 'missing') }))
    .filter((u) => new Set(u.outcomes).size > 1);
}

export async function flakinessGate(ctx: GateContext): Promise<GateOutcome> {
  let runs: Awaited<ReturnType<GateContext['baseRuns']>>;
  try {
    runs = await ctx.baseRuns(FLAKINESS_RUNS);
  } catch (e) {
    if (!(e instanceof InfraError)) throw e;
    return fail(e.message, 'fix the verification gate first: the base state cannot be set up');
  }
  // Runs that graded nothing (a timeout, no report) cannot be compared: identical emptiness is
  // not stability. A suite that gives no report in every run (it does not build at base with
  // the PR's tests; verification allows that when the fix makes it report) is the same each time.
  const silent = runs[0].suites
    .filter((s) =>
      runs.every((r) => r.suites.find((x) => x.name === s.name)?.status === 'no_report'),
    )
    .map((s) => s.name);
  for (const [i, r] of runs.entries()) {
    const problem = suiteProblem(withoutSuites(r, silent), `in run ${i + 1} at base`);
    if (problem)
      return fail(
        `cannot judge flakiness: ${problem.reason}`,
        problem.status === 'fail' ? problem.fix : 'fix the verification gate first',
        problem.details,
      );
  }
  const unstable = unstableTests(runs.map((r) => r.outcomes));
  if (unstable.length === 0)
    return pass(
      `${FLAKINESS_RUNS} runs at base gave the same outcome for each of ${runs[0].outcomes.size} tests${silent.length ? ` (suite ${silent.join(', ')}: no report in every run)` : ''}`,
    );
  const shown = unstable
    .slice(0, 5)
    .map((u) => `${u.id} (${u.outcomes.join(', ')})`)
    .join('; ');
  return fail(
    `${unstable.length} test(s) changed outcome between ${FLAKINESS_RUNS} consecutive runs at base: ${shown}${unstable.length > 5 ? '; ...' : ''}`,
    'make these tests deterministic (no randomness, wall clock, network, or state left by an earlier run in the checkout or /tmp), or drop them from test_patch; a task that is not deterministic before the agent touches it can never be scored',
    { unstable },
  );
}
