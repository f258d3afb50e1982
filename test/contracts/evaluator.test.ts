// Issue 18: the evaluator contract. One process per criterion: exit 0 met, 1 not met, anything
// else an evaluator failure that never reads as a verdict; results are written atomically.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentContext } from '../../src/agent/types.js';
import { commandEvaluator, exitVerdict, writeEvaluation } from '../../src/contracts/evaluator.js';
import { candidateAgent, evaluationOf } from '../../src/contracts/trial-evaluator.js';
import type { TestCriterion } from '../../src/score/criteria.js';
import { trial } from '../report/make-trials.js';

const dir = () => mkdtempSync(join(tmpdir(), 'nb-eval-'));
const candidate = () => ({ ws: dir(), scratch: dir(), since: 0n });
const crit = (id: string, command: string) => ({ id, description: id, command });

describe('the criterion process contract', () => {
  it('0 is met, 1 is not met, 2 and up, signals and timeouts are evaluator failures', () => {
    expect(exitVerdict({ exitCode: 0 })).toBe('met');
    expect(exitVerdict({ exitCode: 1 })).toBe('not_met');
    expect(exitVerdict({ exitCode: 2 })).toBe('infra');
    expect(exitVerdict({ exitCode: 127 })).toBe('infra');
    expect(exitVerdict({ exitCode: null, signal: 'SIGKILL' })).toBe('infra');
    expect(exitVerdict({ exitCode: 0, timedOut: true })).toBe('infra');
  });

  it('each criterion runs as its own process in the workspace; one not met keeps the others', async () => {
    const c = candidate();
    const e = await commandEvaluator(
      [
        crit('has-file', 'echo hi > made.txt && test -f made.txt'),
        crit('fails', 'echo "wrong total" && exit 1'),
        crit('after-a-failure', 'grep -q hi made.txt'),
      ],
      { timeoutSec: 10 },
    ).evaluate(c);
    expect(e).toMatchObject({
      status: 'graded',
      vector: { 'has-file': true, fails: false, 'after-a-failure': true },
      failing: { fails: ['wrong total'] },
    });
    expect(existsSync(join(c.ws, 'made.txt'))).toBe(true);
  });

  it('exit 2 is an infrastructure failure of the evaluator, never a vector of zeros', async () => {
    const e = await commandEvaluator(
      [crit('a', 'exit 0'), crit('b', 'echo "no pinned tree" >&2; exit 2'), crit('c', 'exit 1')],
      { timeoutSec: 10 },
    ).evaluate(candidate());
    expect(e).toMatchObject({ status: 'infra', stage: 'evaluator', code: 'criterion_failed' });
    expect(e).not.toHaveProperty('vector');
    expect((e as { message: string }).message).toBe(
      'criterion b: exit 2 (2 or more is an evaluator failure, never a verdict): no pinned tree',
    );
  });

  it('a criterion that outlives its timeout is an evaluator failure', async () => {
    const e = await commandEvaluator([crit('slow', 'sleep 5')], { timeoutSec: 0.3 }).evaluate(
      candidate(),
    );
    expect(e).toMatchObject({ status: 'infra', code: 'criterion_timeout' });
  });

  it('an evaluation is written atomically: the complete file, no temporary left', () => {
    const d = dir();
    const file = join(d, 'sub', 'case.json');
    writeEvaluation(file, { status: 'graded', vector: { a: true }, failing: {}, ms: 1 });
    writeEvaluation(file, { status: 'graded', vector: { a: false }, failing: {}, ms: 2 });
    expect(JSON.parse(readFileSync(file, 'utf8')).vector).toEqual({ a: false });
    expect(readdirSync(join(d, 'sub'))).toEqual(['case.json']);
  });
});

describe('a contract case graded through the trial core (trial-evaluator.ts)', () => {
  const criteria = [
    { kind: 'tests', id: 'fix', description: 'fix', tests: ['js::a', 'js::b'], source: 'declared' },
    {
      kind: 'tests',
      id: 'pass_to_pass',
      description: 'p2p',
      tests: ['js::c'],
      source: 'pass_to_pass',
    },
  ] as TestCriterion[];

  it("a scored trial's targets become the criteria vector, with what failed", () => {
    const rec = trial({
      details: {
        fail_to_pass: [
          { id: 'js::a', passed: true },
          { id: 'js::b', passed: false },
        ],
        pass_to_pass: [{ id: 'js::c', passed: true }],
      },
    });
    expect(evaluationOf(rec, criteria)).toMatchObject({
      status: 'graded',
      vector: { fix: false, pass_to_pass: true },
      failing: { fix: ['js::b'] },
    });
  });

  it("a trial's infra error is the evaluator's failure, never a vector", () => {
    const rec = trial({
      status: 'error',
      error: 'verify: suite js could not start',
      error_stage: 'verify',
      error_code: 'runner_not_started',
    });
    expect(evaluationOf(rec, criteria)).toEqual({
      status: 'infra',
      stage: 'verify',
      code: 'runner_not_started',
      message: 'suite js could not start',
      ms: 1000,
    });
  });

  it('the candidate agent makes its change; one it cannot make is an infra error', async () => {
    const ws = dir();
    const ctx = { workspace: ws } as AgentContext;
    const ok = await candidateAgent(async (w) => writeFileSync(join(w, 'x'), 'y')).run(ctx);
    expect([ok.exitKind, readFileSync(join(ws, 'x'), 'utf8')]).toEqual(['success', 'y']);
    const bad = await candidateAgent(async () => {
      throw new Error('patch does not apply');
    }).run(ctx);
    expect(bad).toMatchObject({
      exitKind: 'error',
      infraError: expect.stringContaining('patch does not apply'),
    });
  });
});
