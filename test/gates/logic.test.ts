// Issue 5: the pure decisions inside the gates (lists, flakiness, runtime, repository matrix).
import { describe, expect, it } from 'vitest';
import { unstableTests } from '../../src/gates/flakiness.js';
import { computedAxes, type RepoFacts, repoScoreOutcome } from '../../src/gates/repo-score.js';
import { runtimeOutcome } from '../../src/gates/runtime.js';
import { computeLists } from '../../src/gates/verification.js';
import { RepoRecordSchema } from '../../src/task/manifest.js';
import type { TestResult } from '../../src/verify/types.js';

const outcomes = (o: Record<string, TestResult['outcome']>) =>
  new Map(Object.entries(o).map(([id, outcome]) => [id, { id, outcome }]));

describe('computeLists', () => {
  it('fail_to_pass: not passing at base (failed or never reported), passing with the fix', () => {
    const base = outcomes({ a: 'failed', b: 'passed', c: 'passed', d: 'failed', e: 'skipped' });
    const golden = outcomes({
      a: 'passed',
      b: 'passed',
      c: 'failed',
      d: 'failed',
      e: 'skipped',
      n: 'passed',
    });
    expect(computeLists(base, golden)).toEqual({
      failToPass: ['a', 'n'],
      passToPass: ['b'],
      brokenByGolden: ['c'],
      stillFailing: ['d'],
      notPassingAtBase: 3,
    });
  });

  it('nothing failing at base means no fail_to_pass', () => {
    const l = computeLists(outcomes({ a: 'passed' }), outcomes({ a: 'passed' }));
    expect(l.failToPass).toEqual([]);
    expect(l.notPassingAtBase).toBe(0);
  });
});

describe('unstableTests', () => {
  it('ignores order, reports tests whose outcome or presence changes', () => {
    const r1 = outcomes({ a: 'passed', b: 'failed', c: 'passed' });
    const r2 = outcomes({ c: 'passed', b: 'failed', a: 'passed' });
    const r3 = outcomes({ b: 'passed', a: 'passed' });
    expect(unstableTests([r1, r2, r3])).toEqual([
      { id: 'b', outcomes: ['failed', 'failed', 'passed'] },
      { id: 'c', outcomes: ['passed', 'passed', 'missing'] },
    ]);
    expect(unstableTests([r1, r2, r2])).toEqual([]);
  });
});

describe('runtimeOutcome', () => {
  it('passes under 80% of verifier_sec and suggests a timeout when over', () => {
    expect(runtimeOutcome(79_000, 100).status).toBe('pass');
    const over = runtimeOutcome(80_000, 100);
    expect(over.status).toBe('fail');
    expect(over.status === 'fail' && over.fix).toMatch(/verifier_sec to at least 200/);
  });
});

describe('repository matrix: computed axes', () => {
  const facts: RepoFacts = {
    sourceFiles: 120,
    sourceBytes: 300 * 1024,
    testFiles: 60,
    sourceDirs: 9,
    languages: ['python', 'typescript'],
    contributors: 7,
    commits: 40,
    license: true,
    shallow: false,
  };
  it('scores each axis by its thresholds, 16 points at most', () => {
    const axes = Object.fromEntries(computedAxes(facts).map((a) => [a.axis, a.points]));
    expect(axes).toEqual({
      test_suite: 3,
      size: 2,
      module_structure: 2,
      languages: 2,
      contributors: 2,
      history: 0,
      license: 1,
    });
    expect(computedAxes(facts).reduce((n, a) => n + a.max, 0)).toBe(16);
  });
  it('a toy repository scores almost nothing', () => {
    const toy = {
      ...facts,
      sourceBytes: 4000,
      testFiles: 3,
      sourceDirs: 1,
      languages: ['javascript'],
      contributors: 1,
      commits: 3,
      license: false,
    };
    expect(computedAxes(toy).reduce((n, a) => n + a.points, 0)).toBe(2);
  });
});

describe('repository matrix: the verdict', () => {
  const toy = computedAxes({
    sourceFiles: 5,
    sourceBytes: 4000,
    testFiles: 3,
    sourceDirs: 1,
    languages: ['javascript'],
    contributors: 1,
    commits: 3,
    license: false,
    shallow: false,
  });
  const big = toy.map((a) => ({ ...a, points: a.max })); // 16 computed points
  const verdict = (axes: typeof toy, recorded?: object) =>
    repoScoreOutcome('o/r', axes, RepoRecordSchema.parse(recorded ?? {}), 'ds/dataset.json');

  it('below 12 fails, and says so once the maintainer axes are recorded', () => {
    const v = verdict(toy, { maintenance: 0, architecture: 0, note: 'toy' });
    expect(v.status).toBe('fail');
    expect(v.reason).toMatch(/^o\/r scores 2\/20, below the required 12/);
  });

  it('without the maintainer axes, even a repository that computes enough fails and says what to record', () => {
    const v = verdict(big);
    expect(v.status).toBe('fail');
    expect(v.reason).toMatch(
      /^o\/r scores \d+\/20 without the maintainer axes maintenance, architecture/,
    );
    expect(v.status === 'fail' && v.fix).toMatch(
      /"maintenance": 0-2, "architecture": 0-2 and a "note"/,
    );
  });

  it('a recorded waiver passes, and the reason says "waived:" first, then the score', () => {
    const v = verdict(toy, { waiver: 'fixture repository: for the demo' });
    expect(v.status).toBe('pass');
    expect(v.reason).toMatch(
      /^waived: fixture repository: for the demo \(o\/r scores 2\/20, below the required 12: test_suite 1\/3/,
    );
    expect(v.details).toMatchObject({ total: 2, waiver: 'fixture repository: for the demo' });
  });

  it('a repository that scores enough needs no waiver, and a recorded one is not shown', () => {
    const v = verdict(big, { maintenance: 1, waiver: 'unneeded' });
    expect(v).toMatchObject({ status: 'pass', details: { total: 17 } });
    expect(v.reason).toMatch(/^o\/r scores 17\/20 \(/);
    expect(v.details).not.toHaveProperty('waiver');
  });

  it('an empty waiver is refused by the manifest schema', () => {
    expect(RepoRecordSchema.safeParse({ waiver: '' }).success).toBe(false);
  });
});
