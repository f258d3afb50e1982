// A task's grader test cases (judge/grader_tests.json): "this submission must score this
// reward, because ...". `cases` run judge/score.py, `final_cases` judge/final.py; a submission
// is a string (sent as it is), null (nothing submitted) or any other JSON value (sent as JSON).
// They run offline, in milliseconds, in the test suite and in `nanobench task check --graders`.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { type GraderName, type GraderRunner, isGraderFailure } from './grader.js';

const CaseSchema = z
  .object({
    submission: z.unknown(),
    reward: z.number(),
    why: z.string().min(1),
    tolerance: z.number().min(0).default(1e-9),
  })
  .strict();

export const GraderTestsSchema = z
  .object({
    cases: z.array(CaseSchema).min(1),
    final_cases: z.array(CaseSchema).default([]),
  })
  .strict();
export type GraderTests = z.infer<typeof GraderTestsSchema>;

export interface CaseResult {
  grader: GraderName;
  why: string;
  expected: number;
  /** null: the grader failed on the case (crashed, timed out, returned no number). */
  got: number | null;
  reason: string;
  ok: boolean;
}

export function readGraderTests(file: string): GraderTests {
  return GraderTestsSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
}

export async function runGraderTests(
  tests: GraderTests,
  grade: GraderRunner,
): Promise<CaseResult[]> {
  const dir = mkdtempSync(join(tmpdir(), 'nb-grader-tests-'));
  try {
    const out: CaseResult[] = [];
    const all = [
      ...tests.cases.map((c) => ({ c, grader: 'score' as const })),
      ...tests.final_cases.map((c) => ({ c, grader: 'final' as const })),
    ];
    for (const [i, { c, grader }] of all.entries()) {
      let file: string | null = null;
      if (c.submission !== null && c.submission !== undefined) {
        file = join(dir, `case-${i}`);
        writeFileSync(
          file,
          typeof c.submission === 'string' ? c.submission : JSON.stringify(c.submission),
        );
      }
      const g = await grade(grader, file);
      const got = isGraderFailure(g) ? null : g.reward;
      out.push({
        grader,
        why: c.why,
        expected: c.reward,
        got,
        reason: isGraderFailure(g) ? `${g.failure}: ${g.reason}` : g.reason,
        ok: got !== null && Math.abs(got - c.reward) <= c.tolerance,
      });
    }
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
