// Issue 18: `nanobench contracts` through the CLI. On the examples every grader holds its
// contract cases; on copies of textkit-001 whose grader (or whose cases) are broken on purpose,
// each misbehaviour is caught and named with its criterion and a fix: a grader overfitted to the
// golden patch, a lenient one, coupled failures nobody documented (or that do not happen),
// duplicate candidates, a "passing alternative" that is the reference, missing coverage, a
// metamorphic change that flips a verdict, and an evaluator that cannot run at all.
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TaskContracts } from '../../src/contracts/runner.js';
import type { Task } from '../../src/task/schema.js';
import { EXAMPLES, nanobench, tempDir } from '../helpers/cli.js';

const root = tempDir('nb-contracts-');
const cache = join(root, 'cache');
const CASES = join(EXAMPLES, 'contracts', 'textkit-001');
const MIRROR = join(EXAMPLES, 'mirror');

interface ContractsJson {
  held: number;
  total: number;
  misbehaved: string[];
  no_cases: string[];
  tasks: TaskContracts[];
}

function contracts(target: string, extra: string[] = []) {
  const r = nanobench(['contracts', target, '--cache-dir', cache, '--mirror', MIRROR, ...extra]);
  if (r.code !== 0 && r.code !== 1) throw new Error(`contracts exited ${r.code}\n${r.stderr}`);
  return r;
}

function contractsJson(target: string): { code: number | null; out: ContractsJson } {
  const r = contracts(target, ['--json']);
  return { code: r.code, out: JSON.parse(r.stdout) };
}

const readJson = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const writeJson = (file: string, v: unknown) =>
  writeFileSync(file, `${JSON.stringify(v, null, 2)}\n`);

/**
 * A one-task dataset: textkit-001 as `id`, changed by `task`, with the named example cases
 * (task_id rewritten), each changed by `editCase` when given.
 */
function variant(
  name: string,
  id: string,
  cases: string[],
  task: (t: Task) => void = () => {},
  editCase: (caseId: string, raw: Record<string, unknown>) => void = () => {},
): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'tasks'), { recursive: true });
  const t = readJson(join(EXAMPLES, 'tasks', 'textkit-001.json')) as Task;
  t.task_id = id;
  task(t);
  writeJson(join(dir, 'tasks', `${id}.json`), t);
  for (const c of cases) {
    const to = join(dir, 'contracts', id, c);
    cpSync(join(CASES, c), to, { recursive: true });
    const raw = readJson(join(to, 'case.json'));
    raw.task_id = id;
    editCase(c, raw);
    writeJson(join(to, 'case.json'), raw);
  }
  return dir;
}

const findings = (t: TaskContracts, kind: string) => t.findings.filter((f) => f.kind === kind);

// A test that reads the source and wants the golden patch's own line: any other correct
// solution fails it.
const OVERFITTED_TEST = `diff --git a/test/shape.test.js b/test/shape.test.js
new file mode 100644
--- /dev/null
+++ b/test/shape.test.js
@@ -0,0 +1,10 @@
+import assert from 'node:assert/strict';
+import { readFileSync } from 'node:fs';
+import { describe, it } from 'node:test';
+
+describe('truncate', () => {
+  it('leaves room for the ellipsis', () => {
+    const source = readFileSync(new URL('../src/truncate.js', import.meta.url), 'utf8');
+    assert.match(source, /text\\.slice\\(0, maxLength - ellipsis\\.length\\)/);
+  });
+});
`;

describe('nanobench contracts on the examples', () => {
  it('every example grader holds its cases: alternatives accepted, each criterion rejected', () => {
    const { code, out } = contractsJson('examples');
    expect(code, JSON.stringify(out.tasks.flatMap((t) => t.findings))).toBe(0);
    expect(out).toMatchObject({ held: 5, total: 5, misbehaved: [], no_cases: [] });
    for (const t of out.tasks) {
      expect(t.status, t.task_id!).toBe('held');
      expect(t.alternatives, t.task_id!).toBeGreaterThanOrEqual(2);
      for (const c of t.criteria)
        expect(
          t.cases.some((r) => r.outcome === 'reject' && r.criterion === c.id && r.ok),
          `${t.task_id} ${c.id}`,
        ).toBe(true);
      const ref = t.cases.find((r) => r.case_id === 'reference')!;
      expect(Object.values(ref.expected).every(Boolean)).toBe(true);
      // Graded cases carry a complete vector; the reference's digest is nobody else's.
      for (const r of t.cases) {
        expect(r.evaluation?.status, `${t.task_id} ${r.case_id}`).toBe('graded');
        if (r.case_id !== 'reference') expect(r.digest).not.toBe(ref.digest);
      }
    }
    const textkit = out.tasks.find((t) => t.task_id === 'textkit-001')!;
    // The same change in the other candidate form materialises to the same content.
    const byId = Object.fromEntries(textkit.cases.map((r) => [r.case_id, r]));
    expect(byId['alt-room-variable-as-patch'].digest).toBe(byId['alt-room-variable'].digest);
    expect(byId['reject-room-for-one-character'].evaluation).toMatchObject({
      vector: {
        'limit-counts-ellipsis': false,
        'ellipsis-cut-to-limit': false,
        pass_to_pass: true,
      },
    });
    expect(byId['alt-room-variable'].metamorphic).toEqual([
      expect.objectContaining({
        id: 'renamed-local',
        evaluation: expect.objectContaining({ status: 'graded' }),
      }),
    ]);
    const shop = out.tasks.find((t) => t.task_id === 'shopfront-001')!;
    expect(shop.criteria.map((c) => c.id)).toEqual([
      'fail_to_pass_js',
      'fail_to_pass_py',
      'pass_to_pass',
    ]);
  });

  it('names every task of nanobench-v1 as without cases, with the criteria to cover (exit 1)', () => {
    // No case, nothing to run: no repository is needed.
    const r = nanobench(['contracts', 'nanobench-v1', '--cache-dir', cache]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^0 of \d+ task\(s\) hold their contracts; without cases: /m);
    expect(r.stdout).toMatch(
      /no contract cases \(.*datasets\/nanobench-v1\/contracts\/[\w.-]+\/ does not exist or is empty\)/,
    );
    expect(r.stdout).toMatch(/one rejecting case per criterion \(fail_to_pass, pass_to_pass\)/);
  });
});

describe('nanobench contracts catches a misbehaving grader', () => {
  it('a grader overfitted to the golden patch rejects the valid alternatives; a harmless rename flips it', () => {
    const dir = variant(
      'overfitted',
      'textkit-001-overfitted',
      ['alt-room-variable', 'alt-shrink-until-it-fits', 'reject-no-clamp'],
      (t) => {
        const id = 'js::truncate > leaves room for the ellipsis';
        t.test_patch = `${t.test_patch}${OVERFITTED_TEST}`;
        t.fail_to_pass = [...t.fail_to_pass, id].sort();
        t.criteria![0].tests.push(id);
      },
      (c, raw) => {
        if (c === 'reject-no-clamp')
          raw.metamorphic = [
            {
              id: 'renamed-parameter',
              relation: 'rename a parameter',
              rename: { file: 'src/truncate.js', from: 'maxLength', to: 'limit' },
            },
          ];
      },
    );
    const r = contracts(dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(
      'criterion limit-counts-ellipsis: criterion limit-counts-ellipsis rejected the valid alternative alt-room-variable',
    );
    expect(r.stdout).toMatch(
      /failing: js::truncate > leaves room for the ellipsis\): the grader accepts only what looks like the reference/,
    );
    expect(r.stdout).toMatch(
      /how to fix: make the tests of limit-counts-ellipsis check the behaviour the problem statement asks for/,
    );
    const { out } = contractsJson(dir);
    const t = out.tasks[0];
    expect(out.misbehaved).toEqual(['textkit-001-overfitted']);
    expect(findings(t, 'overfitted').map((f) => [f.case, f.criterion])).toEqual([
      ['alt-room-variable', 'limit-counts-ellipsis'],
      ['alt-shrink-until-it-fits', 'limit-counts-ellipsis'],
    ]);
    // The golden patch still passes: without alternatives nothing would show the overfit.
    expect(findings(t, 'reference_rejected')).toEqual([]);
    expect(findings(t, 'metamorphic')).toEqual([
      expect.objectContaining({
        case: 'reject-no-clamp',
        criterion: 'limit-counts-ellipsis',
        message: expect.stringMatching(
          /^rename a parameter \(reject-no-clamp~renamed-parameter\) changed the verdict of limit-counts-ellipsis: T -> F/,
        ),
      }),
    ]);
  });

  it('a lenient grader: a weak test accepts the violation it targets, and passes with no change', () => {
    const dir = variant('lenient', 'textkit-001-lenient', ['reject-no-clamp'], (t) => {
      t.test_patch = t.test_patch!.replace(
        "assert.equal(truncate('hello world', 2, { ellipsis: '...' }), '..');",
        "assert.ok(truncate('hello world', 2, { ellipsis: '...' }).endsWith('.'));",
      );
    });
    const t = contractsJson(dir).out.tasks[0];
    expect(findings(t, 'lenient')).toEqual([
      expect.objectContaining({
        case: 'reject-no-clamp',
        criterion: 'ellipsis-cut-to-limit',
        fix: expect.stringMatching(/add a test to test_patch that fails on it/),
      }),
    ]);
    expect(findings(t, 'met_without_change')).toEqual([
      expect.objectContaining({ case: 'base', criterion: 'ellipsis-cut-to-limit' }),
    ]);
  });

  it('case inventory: undocumented and unobserved coupling, duplicates, the reference as an alternative, coverage', () => {
    const dir = variant(
      'inventory',
      'textkit-001',
      [
        'alt-room-variable',
        'alt-room-variable-as-patch',
        'reject-clamp-only',
        'reject-room-for-one-character',
      ],
      () => {},
      (c, raw) => {
        const expected = raw.expected as Record<string, boolean>;
        if (c === 'alt-room-variable-as-patch') delete raw.duplicate_candidate_reason;
        if (c === 'reject-room-for-one-character') {
          delete raw.coupled_failures;
          expected['ellipsis-cut-to-limit'] = true;
        }
        if (c === 'reject-clamp-only') {
          expected['ellipsis-cut-to-limit'] = false;
          raw.coupled_failures = { 'ellipsis-cut-to-limit': 'claimed, wrongly' };
        }
      },
    );
    // An accepting case that is the golden patch itself.
    const golden = join(dir, 'contracts', 'textkit-001', 'alt-golden');
    mkdirSync(golden);
    const t0 = readJson(join(dir, 'tasks', 'textkit-001.json')) as Task;
    writeFileSync(join(golden, 'candidate.patch'), t0.ground_truth_patch!);
    writeJson(join(golden, 'case.json'), {
      ...readJson(join(dir, 'contracts', 'textkit-001', 'alt-room-variable', 'case.json')),
      description: 'the golden patch',
      metamorphic: undefined,
    });
    const r = contracts(dir);
    expect(r.stdout).toMatch(/FAIL +alt-room-variable-as-patch +accept +not graded/);
    const t = contractsJson(dir).out.tasks[0];
    const got = (kind: string) =>
      findings(t, kind).map((f) => [f.case ?? null, f.criterion ?? null]);
    expect(got('undocumented_coupling')).toEqual([
      ['reject-room-for-one-character', 'ellipsis-cut-to-limit'],
    ]);
    expect(got('coupling_not_observed')).toEqual([['reject-clamp-only', 'ellipsis-cut-to-limit']]);
    expect(got('duplicate')).toEqual([['alt-room-variable-as-patch', null]]);
    expect(findings(t, 'duplicate')[0].message).toMatch(
      /has the same candidate as alt-room-variable \(tree [0-9a-f]{10}\); refused/,
    );
    expect(got('not_an_alternative')).toEqual([['alt-golden', null]]);
    // alt-room-variable is the only alternative that differs from the reference.
    expect(t.alternatives).toBe(1);
    expect(got('too_few_alternatives')).toEqual([[null, null]]);
    expect(got('no_rejecting_case').map(([, k]) => k)).toEqual([
      'ellipsis-cut-to-limit',
      'pass_to_pass',
    ]);
  });

  it('an evaluator that cannot run is an infrastructure failure, never a vector of zeros', () => {
    const dir = variant('infra', 'textkit-001-infra', ['reject-no-clamp'], (t) => {
      t.test_suites[0].command = 'no-such-runner --test test/*.test.js';
    });
    const r = contracts(dir);
    expect(r.code).toBe(1);
    const t = contractsJson(dir).out.tasks[0];
    expect(t.cases.map((c) => c.evaluation?.status)).toEqual(['infra', 'infra', 'infra']);
    for (const c of t.cases) expect(c.evaluation).not.toHaveProperty('vector');
    expect(findings(t, 'infra').map((f) => f.case)).toEqual([
      'reference',
      'base',
      'reject-no-clamp',
    ]);
    expect(findings(t, 'infra')[0].message).toMatch(
      /the evaluator failed on reference \(verify\/runner_not_started: suite js could not start .*\): an infrastructure failure, not a verdict/,
    );
    expect(r.stdout).toMatch(
      /FAIL +reject-no-clamp +reject ellipsis-cut-to-limit +evaluator failed \(verify\/runner_not_started\)/,
    );
  });

  it('a criterion naming a test that is not in fail_to_pass is one line naming the file and the field', () => {
    const dir = variant('bad-criteria', 'textkit-001-bad', ['reject-no-clamp'], (t) => {
      t.criteria![1].tests = ['js::truncate > no such test'];
    });
    const r = contracts(dir);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /textkit-001-bad.json: field "criteria.1.tests.0": "js::truncate > no such test" is not a fail_to_pass test/,
    );
    expect(r.stdout).toMatch(/fail_to_pass test ".*" is in no criterion/);
    expect(r.stdout).toContain(
      '0 of 1 task(s) hold their contracts; could not be run: textkit-001-bad',
    );
  });
});
