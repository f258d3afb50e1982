// Issue #4: `nanobench compare` on runs whose outcomes differ by design. The oracle (5/5) against
// nop (0/5) separates: a regression, and --fail-on-regression fails. pass-first.sh 3 (3/5) against
// pass-first.sh 2 (2/5) does not: "not distinguishable from noise", and CI must not fail on it.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AGENTS, nanobench, runJson, tempDir } from '../helpers/cli.js';

const dir = tempDir('nb-compare-');
const db = join(dir, 'a.sqlite');
const db2 = join(dir, 'b.sqlite');
const onTask = ['examples', '--task', 'textkit-001', '--runs', '5', '--concurrency', '2'];
const passFirst = (n: number) => `command:${join(AGENTS, 'pass-first.sh')} ${n}`;
const ids = { oracle: '', nop: '', three: '', two: '', wider: '' };

interface GroupJson {
  verdict: string;
  base: { passed: number; scored: number; errors: number };
  candidate: { passed: number; scored: number; errors: number };
  label_shifts: { label: string; base: { share: number }; candidate: { share: number } }[];
}

function compareJson(args: string[]) {
  const r = nanobench(['compare', ...args, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as {
    groups: GroupJson[];
    overall: GroupJson;
    warnings: string[];
    regressions: number;
  };
}

beforeAll(() => {
  ids.oracle = runJson(['run', ...onTask, '--agent', 'oracle', '--db', db]).run_id;
  ids.nop = runJson(['run', ...onTask, '--agent', 'nop', '--db', db]).run_id;
  ids.three = runJson(['run', ...onTask, '--agent', passFirst(3), '--db', db]).run_id;
  ids.two = runJson(['run', ...onTask, '--agent', passFirst(2), '--db', db2]).run_id;
  ids.wider = runJson([
    'run',
    'examples',
    '--task',
    'textkit-001,textkit-002',
    '--runs',
    '1',
    '--agent',
    'nop',
    '--db',
    db,
  ]).run_id;
}, 300_000);

describe('nanobench compare', () => {
  it('5/5 -> 0/5 separates: a regression, with the label shift', () => {
    const c = compareJson([ids.oracle, ids.nop, '--db', db]);
    expect(c.groups).toHaveLength(1);
    expect(c.groups[0].base).toMatchObject({ passed: 5, scored: 5, errors: 0 });
    expect(c.groups[0].candidate).toMatchObject({ passed: 0, scored: 5, errors: 0 });
    expect(c.groups[0].verdict).toBe('regression');
    expect(c.overall.verdict).toBe('regression');
    const shift = Object.fromEntries(c.overall.label_shifts.map((s) => [s.label, s]));
    expect([shift.pass.base.share, shift.pass.candidate.share]).toEqual([1, 0]);
    expect([shift.zero_signal.base.share, shift.zero_signal.candidate.share]).toEqual([0, 1]);
    expect(c.warnings).toContain('agents differ: base oracle, candidate nop');
  });

  it('--fail-on-regression exits 1 on that regression, 0 on the improvement the other way', () => {
    const bad = nanobench(['compare', ids.oracle, ids.nop, '--db', db, '--fail-on-regression']);
    expect(bad.code, bad.stderr).toBe(1);
    expect(bad.stdout).toContain(
      'Result: overall **regression**; per model and mode: 1 regression(s), 0 improvement(s), 0 not',
    );
    expect(bad.stdout).toMatch(
      /\| \(oracle → nop\) \| hinted \| 5\/5 \(100%\) 57–100% \| 0\/5 \(0%\) 0–43% \| .* \| \*\*regression\*\* \| 0 \/ 0 \|/,
    );
    expect(bad.stdout).toMatch(
      /\| pass \| 100% \(5\/5\) \| 0% \(0\/5\) \| \*\*distinguishable\*\* \|/,
    );
    const good = nanobench(['compare', ids.nop, ids.oracle, '--db', db, '--fail-on-regression']);
    expect(good.code, good.stderr).toBe(0);
    expect(good.stdout).toContain(
      'Result: overall **improvement**; per model and mode: 0 regression(s), 1',
    );
  });

  it('3/5 -> 2/5 does not separate: noise, and CI passes; runs may come from two databases', () => {
    const c = compareJson([`${db}:${ids.three}`, `${db2}:${ids.two}`]);
    expect(c.groups[0].base).toMatchObject({ passed: 3, scored: 5 });
    expect(c.groups[0].candidate).toMatchObject({ passed: 2, scored: 5 });
    expect(c.groups[0].verdict).toBe('not distinguishable from noise');
    expect(c.regressions).toBe(0);
    const r = nanobench(['compare', `${db}:${ids.three}`, `${db2}:latest`, '--fail-on-regression']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('not distinguishable from noise');
  });

  it('says when the task sets differ and compares the shared tasks only', () => {
    const c = compareJson([ids.oracle, ids.wider, '--db', db]);
    expect(c.warnings.join('\n')).toMatch(
      /task sets differ: compared on the 1 shared task\(s\); only in candidate: textkit-002/,
    );
    // 5/5 vs 0/1 on textkit-001: one run proves little
    expect(c.groups[0].candidate).toMatchObject({ passed: 0, scored: 1 });
    expect(c.groups[0].verdict).toBe('not distinguishable from noise');
    const r = nanobench(['compare', ids.oracle, ids.wider, '--db', db]);
    expect(r.stderr).toMatch(/warning: task sets differ/);
    expect(r.stdout).toMatch(/> ⚠ task sets differ/);
  });

  it('documents its exit codes; a run that does not exist is a usage error (2)', () => {
    const help = nanobench(['compare', '--help']);
    expect(help.stdout).toMatch(/Exit codes:[\s\S]*1 +--fail-on-regression[\s\S]*2 +usage error/);
    const r = nanobench(['compare', ids.oracle, 'no-such-run', '--db', db]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no run "no-such-run"/);
  });
});
