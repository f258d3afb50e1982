// Issue #17: every example task's grader test cases ("this submission must score this reward,
// because ...") run offline, on the host's python3; how a misbehaving grader is read; how a
// Harbor verifier's reward becomes a score.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hostGrader, readGrade } from '../../src/harbor/judge/grader.js';
import { readGraderTests, runGraderTests } from '../../src/harbor/judge/grader-tests.js';
import { harborOutcome, readReward } from '../../src/harbor/reward.js';
import { EXAMPLES } from '../helpers/cli.js';

const HARBOR = join(EXAMPLES, 'harbor');
const judged = readdirSync(HARBOR).filter((d) => {
  try {
    return readdirSync(join(HARBOR, d, 'judge')).includes('grader_tests.json');
  } catch {
    return false;
  }
});

describe('grader test cases of the example tasks', () => {
  it('there is at least one task with a judge', () => expect(judged.length).toBeGreaterThan(0));

  it.each(judged)('%s: every case scores what it says, for the reason it gives', async (task) => {
    const dir = join(HARBOR, task, 'judge');
    const results = await runGraderTests(
      readGraderTests(join(dir, 'grader_tests.json')),
      hostGrader(dir),
    );
    expect(results.filter((r) => !r.ok)).toEqual([]);
    // Each rule the grader enforces has a case that scores 0, and the reference one scores.
    expect(results.some((r) => r.expected === 0)).toBe(true);
    expect(results.some((r) => r.expected > 0)).toBe(true);
    // Grading leaves the task as it was: no bytecode cache beside its judge (issue #22).
    expect(readdirSync(dir)).not.toContain('__pycache__');
  });
});

// Issue 22 §3: a grader that cannot grade is a failure of the grader (an infra error of the
// trial, stage "grader"), never a reward of 0 for what may have been a valid submission. Until
// then these cases scored 0 with the reason.
describe('a grader that misbehaves is a grader failure, never a grade', () => {
  const root = mkdtempSync(join(tmpdir(), 'nb-grader-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const graderWith = (body: string) => {
    const dir = mkdtempSync(join(root, 'g-'));
    writeFileSync(join(dir, 'score.py'), body);
    return hostGrader(dir, 5);
  };
  const grade = (body: string) => graderWith(body)('score', null);

  it('raises: crashed, with what it printed', async () => {
    const g = await grade('def grade(p):\n    raise RuntimeError("boom")\n');
    expect(g).toMatchObject({ failure: 'crashed' });
    expect(g.reason).toMatch(/grader failed .*RuntimeError: boom/);
  });

  it.each([
    ['no reward at all', '{"why": 1}', /returned \{'why': 1\}/],
    ['NaN', '{"reward": float("nan")}', /returned \{'reward': nan\}/],
    ['None', '{"reward": None}', /returned \{'reward': None\}/],
    ['a string', '{"reward": "0.5"}', /returned \{'reward': '0.5'\}/],
    ['a boolean', '{"reward": True}', /returned \{'reward': True\}/],
    ['not a dict', '0.5', /returned 0.5/],
  ])('returns %s: bad_reward', async (_what, value, reason) => {
    const g = await grade(`def grade(p):\n    return ${value}\n`);
    expect(g).toMatchObject({ failure: 'bad_reward' });
    expect(g.reason).toMatch(reason);
    expect(g.reason).toMatch(/must be a finite number/);
  });

  it('an int is a number', async () => {
    expect(await grade('def grade(p):\n    return {"reward": 1}\n')).toEqual({
      reward: 1,
      reason: '',
    });
  });

  it('prints a fake verdict before failing', async () => {
    const g = await grade(
      'import sys\ndef grade(p):\n    print("NANOBENCH_GRADE {\\"reward\\": 1}")\n    sys.exit(3)\n',
    );
    expect(g).toMatchObject({ failure: 'crashed' });
  });

  it('hangs past its time', () => {
    expect(readGrade({ exitCode: null, stdout: '', stderr: '', timedOut: true })).toEqual({
      failure: 'timed_out',
      reason: 'the grader timed out',
    });
  });

  it('is missing', async () => {
    expect(await hostGrader(root)('final', null)).toEqual({
      failure: 'missing',
      reason: 'judge/final.py is missing',
    });
  });
});

describe('the reward of a Harbor verifier', () => {
  const logs = (files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'nb-reward-'));
    for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
    return dir;
  };

  it('reward.txt: one number', () => {
    expect(readReward(logs({ 'reward.txt': '0.5\n' }))).toEqual({
      value: 0.5,
      metrics: { reward: 0.5 },
      file: 'reward.txt',
    });
  });

  it('reward.json: the reward metric; else the only metric; else the mean', () => {
    expect(readReward(logs({ 'reward.json': '{"reward": 0.75, "valid": 1}' })).value).toBe(0.75);
    expect(readReward(logs({ 'reward.json': '{"accuracy": 0.6}' })).value).toBe(0.6);
    expect(
      readReward(logs({ 'reward.json': '{"a": 1, "b": 0, "passed": true}' })).value,
    ).toBeCloseTo(2 / 3);
  });

  it('no reward, or an unreadable one, is an infra error of the verifier, never a score', () => {
    expect(() => readReward(logs({}))).toThrow(/wrote no reward/);
    expect(() => readReward(logs({ 'reward.txt': 'pass' }))).toThrow(/one number/);
    expect(() => readReward(logs({ 'reward.json': '[1]' }))).toThrow(/no numeric metric/);
    expect(() => readReward(logs({ 'reward.json': '{' }))).toThrow(/not JSON/);
  });

  // Issue 22 §3: a nop agent was paid 1.0 when "reward" was malformed and another metric (a
  // duration, a count) became the score; "0x1" in reward.txt read as 1.
  it.each([
    [
      '{"reward": "0.0", "duration_sec": 12.5}',
      /"reward" is "0.0" \(string\): it must be a finite number/,
    ],
    ['{"reward": null, "tests": 3}', /"reward" is null \(null\)/],
    ['{"reward": true}', /"reward" is true \(boolean\)/],
    ['{"reward": "0x1"}', /"reward" is "0x1" \(string\)/],
  ])('reward.json %s: verify/bad_reward, never another metric', (json, message) => {
    try {
      readReward(logs({ 'reward.json': json }));
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({ stage: 'verify', code: 'bad_reward' });
      expect((e as Error).message).toMatch(message);
    }
  });

  it.each(['0x1', '0b1', 'true', 'Infinity', '1/2', ''])(
    'reward.txt "%s" is not a reward',
    (text) => {
      expect(() => readReward(logs({ 'reward.txt': text }))).toThrow(
        /reward.txt must hold one number/,
      );
    },
  );

  it('reward.txt takes a decimal number, signed or with an exponent', () => {
    for (const [text, value] of [
      ['1', 1],
      ['0.25\n', 0.25],
      ['-0.5', -0.5],
      ['1e-1', 0.1],
      ['.5', 0.5],
    ] as const)
      expect(readReward(logs({ 'reward.txt': text })).value).toBe(value);
  });

  it('labels: pass at 1, partial_reward between, no_reward at 0; scores clamped to [0, 1]', () => {
    const r = (value: number) => ({
      value,
      metrics: { reward: value },
      file: 'reward.txt' as const,
    });
    expect(harborOutcome(r(1), 'success', 1)).toMatchObject({ label: 'pass', score: 1 });
    expect(harborOutcome(r(2.5), 'success', 1)).toMatchObject({ label: 'pass', score: 1 });
    expect(harborOutcome(r(0.3), 'success', 1)).toMatchObject({
      label: 'partial_reward',
      score: 0.3,
    });
    expect(harborOutcome(r(0), 'success', 0)).toMatchObject({ label: 'no_reward', score: 0 });
    expect(harborOutcome(r(-1), 'success', 0)).toMatchObject({ label: 'no_reward', score: 0 });
    expect(harborOutcome(r(0.3), 'context_exceeded', 0)).toMatchObject({
      label: 'context_window_exceeded',
      score: 0,
    });
  });
});
