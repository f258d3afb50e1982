// Issue #13: the shipped workflow's validate job runs `nanobench validate` on changed task files of
// examples/; every example task must pass every gate, the repository matrix by a visible waiver.
// Here the gates that examples/dataset.json decides; the controls (controls.test.ts) and the
// recomputed test lists (validate.test.ts) are tested on the examples already, at length.
import { describe, expect, it } from 'vitest';
import { nanobench, tempDir } from '../helpers/cli.js';

describe('validate examples', () => {
  it('admits every example task; the fixture repositories pass repo_score as "waived:"', () => {
    const cache = tempDir('nb-val-ex-');
    const only = ['--only', 'contamination,repo_score'];
    const r = nanobench(['validate', 'examples', ...only, '--cache-dir', cache, '--json']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ admissible: 5, waived: 5, total: 5 });
    for (const t of out.tasks) {
      const gates = Object.fromEntries(
        t.gates.map((g: { gate: string; status: string; reason: string }) => [g.gate, g]),
      );
      expect(
        Object.values(gates).every((g) => g.status === 'pass'),
        t.task_id,
      ).toBe(true);
      expect(gates.repo_score.reason, t.task_id).toMatch(
        /^waived: fixture repository: .* scores \d+\/20/,
      );
      expect(gates.contamination.reason).toMatch(
        /after the cutoff 2026-01-01T00:00:00Z; confirmed/,
      );
    }
  });

  it("--concurrency 2 validates two tasks at once and prints them in the targets' order", () => {
    const cache = tempDir('nb-val-conc-');
    const args = ['validate', 'examples', '--only', 'verification', '--cache-dir', cache, '--json'];
    const one = nanobench(args);
    const two = nanobench([...args, '--concurrency', '2']);
    expect(two.code, two.stderr).toBe(one.code);
    const ids = (r: { stdout: string }) =>
      JSON.parse(r.stdout).tasks.map((t: { task_id: string; admissible: boolean }) => [
        t.task_id,
        t.admissible,
      ]);
    expect(ids(two)).toEqual(ids(one));
    expect(ids(two).map((t: [string]) => t[0])).toEqual([
      'invoicing-001',
      'invoicing-002',
      'shopfront-001',
      'textkit-001',
      'textkit-002',
    ]);
    // Progress per task, as each finishes.
    expect(
      two.stderr.match(/: (admissible|not admissible) in [\d.]+s \(\d\/5 done\)/g),
    ).toHaveLength(5);
    const bad = nanobench(['validate', 'examples', '--concurrency', '0']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--concurrency must be an integer from 1 to 16/);
  });

  it("the navigation-mode controls reuse the hinted trials' suite runs (same workspace tree)", () => {
    const cache = tempDir('nb-val-ctl-');
    const r = nanobench(
      ['validate', 'examples/tasks/textkit-001.json', '--only', 'controls'].concat([
        '--cache-dir',
        cache,
        '--json',
      ]),
    );
    expect(r.code, r.stderr).toBe(0);
    const controls = JSON.parse(r.stdout).tasks[0].gates.find(
      (g: { gate: string }) => g.gate === 'controls',
    );
    expect(controls.status).toBe('pass');
    // Both agents' navigation trials ran every phase but the suites, and still scored 1.0 / 0.0.
    expect(controls.details.hinted.verifier_runs_reused).toBeUndefined();
    expect(controls.details.navigation).toMatchObject({
      oracle: { status: 'scored', score: 1 },
      nop: { status: 'scored', score: 0 },
      verifier_runs_reused: 2,
    });
  });
});
