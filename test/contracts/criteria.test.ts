// Issue 18: how a PR task maps onto evaluator criteria, and the case files that test them.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkCase, loadCases } from '../../src/contracts/cases.js';
import { taskCriteria, testCriteriaVector } from '../../src/score/criteria.js';
import { loadDataset } from '../../src/task/load.js';
import type { Task } from '../../src/task/schema.js';
import { EXAMPLES } from '../helpers/cli.js';

const examples = Object.fromEntries(loadDataset(EXAMPLES).map((t) => [t.task.task_id, t.task]));

describe('criteria of a PR task', () => {
  it('without declared criteria: one per suite of fail_to_pass, then pass_to_pass', () => {
    const shop = taskCriteria(examples['shopfront-001']);
    expect(shop.map((c) => [c.id, c.tests.length, c.source])).toEqual([
      ['fail_to_pass_js', 5, 'derived'],
      ['fail_to_pass_py', 4, 'derived'],
      ['pass_to_pass', 22, 'pass_to_pass'],
    ]);
    const single = taskCriteria(examples['invoicing-001']);
    expect(single.map((c) => c.id)).toEqual(['fail_to_pass', 'pass_to_pass']);
  });

  it('declared criteria group fail_to_pass and must cover it exactly', () => {
    const t = examples['textkit-001'];
    expect(taskCriteria(t).map((c) => [c.id, c.tests.length, c.source])).toEqual([
      ['limit-counts-ellipsis', 2, 'declared'],
      ['ellipsis-cut-to-limit', 1, 'declared'],
      ['pass_to_pass', 29, 'pass_to_pass'],
    ]);
    const stale: Task = {
      ...t,
      criteria: [{ ...t.criteria![0], tests: [...t.criteria![0].tests, 'js::gone'] }],
    };
    expect(() => taskCriteria(stale, 'tasks/t.json')).toThrow(
      /tasks\/t.json: field "criteria.0.tests.2": "js::gone" is not a fail_to_pass test/,
    );
    expect(() => taskCriteria(stale, 'tasks/t.json')).toThrow(
      /field "criteria": fail_to_pass test "js::truncate > shortens the ellipsis when the limit is smaller than it" is in no criterion/,
    );
  });

  it('a criterion is met when all its tests pass; the failing tests are named', () => {
    const crit = taskCriteria(examples['textkit-001']);
    const failing = new Set(['js::truncate > counts a custom ellipsis in the limit']);
    const r = testCriteriaVector(crit, (id) => !failing.has(id));
    expect(r.vector).toEqual({
      'limit-counts-ellipsis': false,
      'ellipsis-cut-to-limit': true,
      pass_to_pass: true,
    });
    expect(r.failing).toEqual({ 'limit-counts-ellipsis': [...failing] });
  });
});

describe('contract case files', () => {
  const criteria = taskCriteria(examples['textkit-001']);
  const ok = {
    contract_version: 1,
    task_id: 'textkit-001',
    outcome: 'reject',
    criterion: 'limit-counts-ellipsis',
    description: 'd',
    expected: { 'limit-counts-ellipsis': false, 'ellipsis-cut-to-limit': true, pass_to_pass: true },
  };
  const problems = (raw: unknown) =>
    checkCase(raw, 'c/case.json', 'textkit-001', criteria).problems;

  it('a valid rejecting case has no problems', () => expect(problems(ok)).toEqual([]));

  it('the vector is complete, with no unknown key', () => {
    const { pass_to_pass: _, ...partial } = ok.expected;
    expect(problems({ ...ok, expected: { ...partial, extra: true } })).toEqual([
      'c/case.json: field "expected": missing criterion "pass_to_pass"; the vector is complete: give every criterion (limit-counts-ellipsis, ellipsis-cut-to-limit, pass_to_pass)',
      'c/case.json: field "expected.extra": the task has no criterion "extra" (criteria: limit-counts-ellipsis, ellipsis-cut-to-limit, pass_to_pass)',
    ]);
  });

  it('a rejecting case expects its criterion false; other failures need a documented coupling', () => {
    expect(
      problems({ ...ok, expected: { ...ok.expected, 'limit-counts-ellipsis': true } }),
    ).toEqual([
      'c/case.json: field "expected.limit-counts-ellipsis": the case rejects on "limit-counts-ellipsis", so it must be expected false',
    ]);
    const two = { ...ok, expected: { ...ok.expected, 'ellipsis-cut-to-limit': false } };
    expect(problems(two)[0]).toMatch(
      /field "expected.ellipsis-cut-to-limit": expected false without a reason: .* say why in coupled_failures.ellipsis-cut-to-limit/,
    );
    expect(
      problems({ ...two, coupled_failures: { 'ellipsis-cut-to-limit': 'it must, because' } }),
    ).toEqual([]);
    expect(problems({ ...ok, coupled_failures: { pass_to_pass: 'x' } })).toEqual([
      'c/case.json: field "coupled_failures.pass_to_pass": a coupled failure must be expected false (expected.pass_to_pass is true)',
    ]);
    expect(problems({ ...ok, criterion: undefined })[0]).toMatch(
      /field "criterion": missing; a rejecting case names the criterion it violates/,
    );
  });

  it('an accepting case expects every criterion true and names none', () => {
    const accept = { ...ok, outcome: 'accept', criterion: undefined };
    expect(problems(accept)[0]).toMatch(
      /field "expected": an accepting case expects every criterion true, but limit-counts-ellipsis is false/,
    );
  });

  it('unknown fields and a foreign task id are named', () => {
    expect(problems({ ...ok, expect: {} })[0]).toMatch(/unknown field\(s\) "expect"/);
    expect(problems({ ...ok, task_id: 'textkit-002' })).toEqual([
      'c/case.json: field "task_id": "textkit-002", but the case is stored for task textkit-001; correct it',
    ]);
  });

  it('a case directory holds exactly one candidate form; bad cases are left out, named', () => {
    const ds = mkdtempSync(join(tmpdir(), 'nb-cases-'));
    const dir = (id: string) => {
      const d = join(ds, 'contracts', 'textkit-001', id);
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, 'case.json'), JSON.stringify(ok));
      return d;
    };
    writeFileSync(join(dir('good'), 'candidate.patch'), 'diff');
    dir('neither');
    const both = dir('both');
    writeFileSync(join(both, 'candidate.patch'), 'diff');
    mkdirSync(join(both, 'files'));
    mkdirSync(join(ds, 'contracts', 'textkit-001', 'reference'));
    const r = loadCases(ds, 'textkit-001', criteria);
    expect(r.present).toBe(true);
    expect(r.cases.map((c) => [c.id, c.candidate.kind])).toEqual([['good', 'patch']]);
    expect(r.problems).toEqual([
      expect.stringMatching(
        /both: both candidate.patch and files\/: a case holds its candidate in exactly one/,
      ),
      expect.stringMatching(/neither: neither candidate.patch and files\//),
      expect.stringMatching(/reference: .*not reference or base \(built-in cases\); rename it/),
    ]);
    expect(loadCases(ds, 'textkit-002', criteria)).toEqual({
      present: false,
      cases: [],
      problems: [],
    });
  });
});
