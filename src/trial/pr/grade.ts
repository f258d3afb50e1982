// A PR task's grade: each target test's outcome from the verification, the ordered rules over
// them (src/score/rules.ts), the evaluator's criteria vector. Pure but for the Level-4 symbol
// lookup it is handed.
import type { FilesRead } from '../../agent/tool-use.js';
import type { ExitKind, Mode } from '../../agent/types.js';
import { type CriteriaVector, taskCriteria, testCriteriaVector } from '../../score/criteria.js';
import { SCORING_RULES_VERSION, type score, type TargetTest } from '../../score/rules.js';
import type { ResolvedTask } from '../../task/patches.js';
import { UserError } from '../../util/errors.js';
import { targetOutcome, type Verification } from '../../verify/verifier.js';
import { addedLines, type WorkspaceDiff } from '../../workspace/diff.js';
import type { Grade } from '../record.js';
import { unreported } from './task-control.js';

export interface GradeInput {
  task: ResolvedTask;
  mode: Mode;
  diff: WorkspaceDiff;
  verification: Verification;
  exit: ExitKind;
  timedOut: boolean;
  filesRead?: FilesRead;
  score: typeof score;
  existsAtBase: (sym: string) => boolean;
}

/** A failed target keeps (the start of) its message: why it failed, without the suite's output. */
const targetRecord = (t: TargetTest) => ({
  id: t.id,
  passed: t.passed,
  ...(!t.passed && t.message && { message: t.message.slice(0, 2000) }),
});

export function gradePr(g: GradeInput): Grade {
  const { task, verification: v } = g;
  const targets = (ids: string[]) =>
    ids.map((id) => ({ id, suite: id.split('::')[0], ...targetOutcome(v, id) }));
  const failToPass = targets(task.fail_to_pass);
  const passToPass = targets(task.pass_to_pass);
  const all = [...failToPass, ...passToPass];
  const outcome = g.score({
    mode: g.mode,
    requiredFiles: task.required_files,
    filesChanged: g.diff.files,
    agentExit: g.exit,
    failToPass,
    passToPass,
    suiteLanguages: Object.fromEntries(task.test_suites.map((x) => [x.name, x.language])),
    failureText: v.suites.map((x) => x.stderr).join('\n'),
    agentAddedLines: addedLines(g.diff.patch),
    existsAtBase: g.existsAtBase,
    filesRead: g.filesRead,
  });
  const flags = [...outcome.flags, ...(g.timedOut ? ['timed_out'] : [])];
  const details: Record<string, unknown> = {};
  const { missing } = unreported(task, v);
  if (missing.length) {
    // The suite ran and reported, yet never mentioned these targets: the task's lists may be
    // stale (or name a test that never existed). Shown, not hidden inside the score.
    flags.push('target_tests_missing');
    details.missing_targets = { count: missing.length, ids: missing.slice(0, 20) };
  }
  const criteria = criteriaOf(task, all);
  return {
    score: outcome.score,
    label: outcome.label,
    confidenceLevel: outcome.confidenceLevel,
    flags,
    tests: {
      passed: all.filter((t) => t.passed).length,
      failed: all.filter((t) => !t.passed).length,
      total: all.length,
    },
    details: {
      ...details,
      scoring_rules_version: SCORING_RULES_VERSION,
      explanation: outcome.explanation,
      symbol: outcome.symbol,
      fail_to_pass: failToPass.map(targetRecord),
      pass_to_pass: passToPass.map(targetRecord),
      suites: v.suites.map((x) => ({
        name: x.name,
        status: x.status,
        exit_code: x.exitCode,
        timed_out: x.timedOut,
        ms: x.durationMs,
        tests: x.tests.length,
        fallback: x.fallback,
      })),
      verifier_ms: v.durationMs,
      ...(criteria && { criteria }),
    },
  };
}

/** The criteria vector of a graded trial; undefined when the task's criteria do not fit its lists. */
function criteriaOf(task: ResolvedTask, targets: TargetTest[]): CriteriaVector | undefined {
  const passed = new Map(targets.map((t) => [t.id, t.passed]));
  try {
    return testCriteriaVector(taskCriteria(task), (id) => passed.get(id) ?? false).vector;
  } catch (e) {
    if (e instanceof UserError) return undefined; // `nanobench contracts` names the problem
    throw e;
  }
}
