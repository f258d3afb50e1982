// Evaluators: what grades a candidate change into a criteria vector. An evaluation is either a
// complete vector or an infrastructure failure of the evaluator, never both: a grader that
// could not run has not judged the candidate, and its failure must not read as "nothing met".
//
// The process contract (one process per criterion): exit 0 = met, 1 = not met, anything else
// (2 or more, a signal, a timeout, a command that could not start) = the evaluator failed.
// Command criteria follow it directly (commandEvaluator); PR tasks follow it through their test
// suites, graded by the trial core (trial-evaluator.ts): a suite is a process whose per-test
// report decides the criteria holding its tests, and a suite that could not start, or tests that
// could not be set up, is the evaluator's failure. A future task kind whose tests/test.sh grades
// a candidate (Harbor, issue 17) plugs in as command criteria or as its own Evaluator.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { CriteriaVector, Criterion } from '../score/criteria.js';
import { run } from '../util/process.js';
import { cleanTestEnv } from '../verify/verifier.js';

export type Evaluation = (
  | {
      status: 'graded';
      vector: CriteriaVector;
      /** Per unmet criterion, what failed (test ids, or the check's last output). */
      failing: Record<string, string[]>;
      ms: number;
    }
  | { status: 'infra'; stage: string; code: string; message: string; ms: number }
) & {
  /** Where the candidate was graded, when a trial graded it: its sandbox kind (none, podman...). */
  sandbox?: string;
};

/** A candidate applied in a workspace, ready to be graded. */
export interface CandidateWorkspace {
  ws: string;
  /** Scratch directory of this evaluation (HOME of the checks; removed by the caller). */
  scratch: string;
  /** ctime mark taken before the candidate was applied (what it touched is found after it). */
  since: bigint;
}

export interface Evaluator {
  readonly criteria: readonly Criterion[];
  evaluate(c: CandidateWorkspace): Promise<Evaluation>;
}

export type ExitVerdict = 'met' | 'not_met' | 'infra';

/** One criterion process's verdict from how it ended. */
export function exitVerdict(r: {
  exitCode: number | null;
  timedOut?: boolean;
  signal?: string | null;
}): ExitVerdict {
  if (r.timedOut || r.exitCode === null) return 'infra';
  if (r.exitCode === 0) return 'met';
  if (r.exitCode === 1) return 'not_met';
  return 'infra';
}

/**
 * Write an evaluation atomically (temporary file, then rename): a reader sees the previous file
 * or the complete new one, never a torn vector.
 */
export function writeEvaluation(file: string, e: Evaluation & Record<string, unknown>): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(e, null, 2)}\n`);
  renameSync(tmp, file);
}

export interface CommandCriterion extends Criterion {
  /** Shell command run in the workspace; its exit code is the verdict (exitVerdict). */
  command: string;
}

const lastLine = (s: string) =>
  s
    .trim()
    .split('\n')
    .filter((l) => l.trim())
    .slice(-1)[0] ?? '';

/**
 * Criteria that are checks of their own: each command runs as its own process in the workspace
 * (clean environment, fresh HOME), so one that crashes cannot erase the others' verdicts. The
 * vector starts all false and is complete only if every process ended with 0 or 1.
 */
export function commandEvaluator(
  criteria: CommandCriterion[],
  opts: { timeoutSec: number },
): Evaluator {
  return {
    criteria,
    async evaluate(c) {
      const started = Date.now();
      const home = join(c.scratch, 'check-home');
      const vector: CriteriaVector = Object.fromEntries(criteria.map((k) => [k.id, false]));
      const failing: Record<string, string[]> = {};
      for (const k of criteria) {
        rmSync(home, { recursive: true, force: true });
        mkdirSync(home, { recursive: true });
        const r = await run('/bin/sh', ['-c', k.command], {
          cwd: c.ws,
          env: cleanTestEnv(home),
          timeoutMs: opts.timeoutSec * 1000,
        });
        const verdict = exitVerdict(r);
        if (verdict === 'infra')
          return {
            status: 'infra',
            stage: 'evaluator',
            code: r.timedOut ? 'criterion_timeout' : 'criterion_failed',
            message: `criterion ${k.id}: ${r.timedOut ? `timed out after ${opts.timeoutSec}s` : r.exitCode === null ? `killed by ${r.signal}` : `exit ${r.exitCode}`} (2 or more is an evaluator failure, never a verdict): ${lastLine(r.stderr) || lastLine(r.stdout) || '(no output)'}`,
            ms: Date.now() - started,
          };
        vector[k.id] = verdict === 'met';
        if (verdict === 'not_met') failing[k.id] = [lastLine(r.stdout) || lastLine(r.stderr)];
      }
      return { status: 'graded', vector, failing, ms: Date.now() - started };
    },
  };
}
