// The criteria of a task's evaluator: each one requirement, met or not. A grader's result is the
// vector of them, so contract cases (src/contracts/cases.ts) can say which requirement a
// candidate meets and which it breaks, instead of one pass/fail for everything.
//
// PR tasks map onto criteria through their test lists:
// - the fail_to_pass tests, grouped: as the task declares (`criteria`, each group one
//   requirement of the problem statement), else one criterion per suite ("fail_to_pass" with one
//   suite, "fail_to_pass_<suite>" with several);
// - "pass_to_pass": nothing that passed at base breaks (every pass_to_pass test still passes).
// A criterion is met when every one of its tests passes; a test that never reported fails.
import { PASS_TO_PASS_CRITERION, type Task } from '../task/schema.js';
import { UserError } from '../util/errors.js';

export interface Criterion {
  id: string;
  description: string;
}

/** A criterion of a PR task: a group of its tests. */
export interface TestCriterion extends Criterion {
  kind: 'tests';
  tests: string[];
  /** Declared in the task file, derived from its suites, or the pass_to_pass criterion. */
  source: 'declared' | 'derived' | 'pass_to_pass';
}

/** Criterion id -> met. Complete: every criterion of the evaluator has a value. */
export type CriteriaVector = Record<string, boolean>;

const suiteOf = (id: string) => id.split('::')[0];

/**
 * The criteria a PR task is graded on, in a fixed order (the fix criteria as declared or by
 * suite, then pass_to_pass). Declared criteria must cover fail_to_pass exactly: a UserError
 * names the file, the field and the fix.
 */
export function taskCriteria(task: Task, file = task.task_id): TestCriterion[] {
  const out: TestCriterion[] = [];
  if (task.criteria) {
    const f2p = new Set(task.fail_to_pass);
    const problems: string[] = [];
    for (const [i, c] of task.criteria.entries())
      for (const [j, id] of c.tests.entries())
        if (!f2p.has(id))
          problems.push(
            `${file}: field "criteria.${i}.tests.${j}": "${id}" is not a fail_to_pass test; criteria group fail_to_pass tests: remove it or correct the id (nanobench validate --write re-records the lists)`,
          );
    const covered = new Set(task.criteria.flatMap((c) => c.tests));
    for (const id of task.fail_to_pass)
      if (!covered.has(id))
        problems.push(
          `${file}: field "criteria": fail_to_pass test "${id}" is in no criterion; add it to the criterion whose requirement it tests`,
        );
    if (problems.length) throw new UserError('INVALID_CRITERIA', problems.join('\n'));
    for (const c of task.criteria)
      out.push({
        kind: 'tests',
        id: c.id,
        description: c.description,
        tests: c.tests,
        source: 'declared',
      });
  } else {
    const suites = [...new Set(task.fail_to_pass.map(suiteOf))];
    for (const s of suites) {
      const tests = task.fail_to_pass.filter((id) => suiteOf(id) === s);
      out.push({
        kind: 'tests',
        id: suites.length === 1 ? 'fail_to_pass' : `fail_to_pass_${s}`,
        description: `the fix: every fail_to_pass test of suite ${s} passes (${tests.length})`,
        tests,
        source: 'derived',
      });
    }
  }
  // Without pass_to_pass tests there is nothing to break, and no case could reject it.
  if (task.pass_to_pass.length)
    out.push({
      kind: 'tests',
      id: PASS_TO_PASS_CRITERION,
      description: `nothing that passed at base breaks: every pass_to_pass test passes (${task.pass_to_pass.length})`,
      tests: task.pass_to_pass,
      source: 'pass_to_pass',
    });
  return out;
}

/** The vector of test criteria, and per unmet criterion the tests that did not pass. */
export function testCriteriaVector(
  criteria: TestCriterion[],
  passed: (testId: string) => boolean,
): { vector: CriteriaVector; failing: Record<string, string[]> } {
  const vector: CriteriaVector = {};
  const failing: Record<string, string[]> = {};
  for (const c of criteria) {
    const bad = c.tests.filter((id) => !passed(id));
    vector[c.id] = bad.length === 0;
    if (bad.length) failing[c.id] = bad;
  }
  return { vector, failing };
}

/** "T F T" in criteria order, for one-line output. */
export function showVector(criteria: Criterion[], v: CriteriaVector): string {
  return criteria.map((c) => (v[c.id] ? 'T' : 'F')).join(' ');
}
