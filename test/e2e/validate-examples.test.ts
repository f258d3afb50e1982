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
});
