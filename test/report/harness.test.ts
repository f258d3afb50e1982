import { describe, expect, it } from 'vitest';
import { harnessDeltas, harnessRows } from '../../src/report/harness.js';
import type { Label } from '../../src/score/labels.js';

const trial = (agent: string, task: number, label: Label, tokens = 100) => ({
  task_id: `t${task}`,
  agent,
  provider: 'scripted',
  model: 'm',
  mode: 'hinted',
  attempt: 1,
  status: 'scored' as const,
  score: label === 'pass' ? 1 : 0,
  label,
  flags: [],
  tokens_in: tokens,
  tokens_out: 0,
  cost_usd: null,
});

describe('harness delta', () => {
  it('is empty unless bare and another agent ran the same cells', () => {
    expect(harnessDeltas([trial('nanocoder', 1, 'pass')])).toEqual([]);
    expect(harnessDeltas([trial('bare', 1, 'pass')])).toEqual([]);
  });

  it('harness minus bare, paired over tasks, with the labels and usage of each side', () => {
    const tasks = [1, 2, 3, 4, 5, 6];
    const trials = tasks.flatMap((i) => [
      trial('nanocoder', i, 'pass', 1000),
      trial('bare', i, i <= 3 ? 'hallucinated_api' : 'unusable_edit', 200),
    ]);
    const [d] = harnessDeltas(trials);
    expect(d).toMatchObject({
      provider: 'scripted',
      model: 'm',
      mode: 'hinted',
      harness: { agent: 'nanocoder', labels: { pass: 6 }, usage: { tokens_per_solved: 1000 } },
      bare: { agent: 'bare', usage: { tokens_per_solved: null, passed: 0 } },
      paired: { tasks: 6, verdict: 'harness better', mean_score: { estimate: 1 } },
    });
    expect(d.paired.p_holm).toBeLessThan(0.05);
    expect(d.label_shift).toEqual([
      { label: 'pass', harness: 6, bare: 0, delta: 6 },
      { label: 'hallucinated_api', harness: 0, bare: 3, delta: -3 },
      { label: 'unusable_edit', harness: 0, bare: 3, delta: -3 },
    ]);
    const [row] = harnessRows([d]);
    expect(row[0]).toBe('nanocoder vs bare · scripted/m');
    expect(row[5]).toMatch(/^\+1\.00/);
    expect(row.at(-1)).toBe('pass +6, hallucinated_api −3, unusable_edit −3');
  });

  it('gives no paired verdict with too few shared tasks', () => {
    const [d] = harnessDeltas([trial('nanocoder', 1, 'pass'), trial('bare', 1, 'incorrect_fix')]);
    expect(d.paired).toMatchObject({ tasks: 1, verdict: null, p_holm: null });
    expect(harnessRows([d])[0][7]).toMatch(/too few tasks/);
  });
});
