// A PR task's contract cases graded through the trial core (src/trial/run-trial.ts), as every
// trial of a run and validate's controls are: the candidate is the agent (it applies the case's
// change in the trial's workspace, as the oracle applies the golden patch), then the same guard,
// diff, hardening, verification (in the task's environment under a container sandbox) and grade.
// The criteria vector is read from the graded targets, so a contract judges the very grader a
// run scores with, not a copy of its steps.
import type { Agent, AgentResult } from '../agent/types.js';
import { gateTrialSpec } from '../gates/context.js';
import { type TestCriterion, testCriteriaVector } from '../score/criteria.js';
import type { LoadedTask } from '../task/load.js';
import type { ResolvedTask } from '../task/patches.js';
import type { TrialEnv } from '../trial/env.js';
import type { TrialRecord } from '../trial/record.js';
import { runTrial } from '../trial/run-trial.js';
import type { Evaluation } from './evaluator.js';

/** What a candidate does to the workspace at base_commit (apply a patch, copy files, rename). */
export type ApplyCandidate = (ws: string) => Promise<void>;

export const CANDIDATE_AGENT = 'candidate';

/** The candidate as an agent: it makes its change and stops; a change that fails is infra. */
export function candidateAgent(apply: ApplyCandidate): Agent {
  return {
    name: CANDIDATE_AGENT,
    async run(ctx): Promise<AgentResult> {
      const start = Date.now();
      const done = { stdout: '', stderr: '', timedOut: false };
      try {
        await apply(ctx.workspace);
        return { ...done, exitCode: 0, exitKind: 'success', durationMs: Date.now() - start };
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        return {
          ...done,
          exitCode: 1,
          exitKind: 'error',
          durationMs: Date.now() - start,
          infraError: `the candidate could not be applied in the trial's workspace: ${message}`,
        };
      }
    },
  };
}

/** A trial's record as an evaluation: its infra error, or the criteria read off its targets. */
export function evaluationOf(rec: TrialRecord, criteria: TestCriterion[]): Evaluation {
  const ms = rec.duration_ms ?? 0;
  const where = rec.details.sandbox ? { sandbox: rec.details.sandbox.kind } : {};
  if (rec.status !== 'scored') {
    const stage = rec.error_stage ?? 'trial';
    const message = rec.error.replace(`${stage}: `, '');
    return { status: 'infra', stage, code: rec.error_code ?? 'error', message, ms, ...where };
  }
  const targets = [...(rec.details.fail_to_pass ?? []), ...(rec.details.pass_to_pass ?? [])];
  const passed = new Map(targets.map((t) => [t.id, t.passed]));
  const { vector, failing } = testCriteriaVector(criteria, (id) => passed.get(id) ?? false);
  return { status: 'graded', vector, failing, ms, ...where };
}

/** Grades candidates of one task, one trial each (attempt n: every trial its own key). */
export function trialEvaluator(
  lt: LoadedTask<ResolvedTask>,
  criteria: TestCriterion[],
  /** The trial environment of the task's gates, with the candidate as its agent. */
  envFor: (agent: Agent) => TrialEnv,
): (apply: ApplyCandidate) => Promise<Evaluation> {
  let attempt = 0;
  return async (apply) => {
    const rec = await runTrial(
      gateTrialSpec(lt, CANDIDATE_AGENT, 'hinted', ++attempt),
      envFor(candidateAgent(apply)),
    );
    return evaluationOf(rec, criteria);
  };
}
