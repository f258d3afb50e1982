// Issue #2: the controls, end to end through the CLI. The oracle must score 1.0 and nop 0.0
// on every example task, in both modes, with the tier sampling policy.
import { describe, expect, it } from 'vitest';
import { runJson, tempDir } from '../helpers/cli.js';

describe('controls on the example dataset', () => {
  const db = `${tempDir()}/r.sqlite`;

  it('oracle scores 1.0 on every task in both modes', () => {
    const out = runJson([
      'run',
      'examples',
      '--agent',
      'oracle',
      '--mode',
      'both',
      '--concurrency',
      '2',
      '--db',
      db,
    ]);
    // tiers 1,2 -> one run; tiers 3,3,4 -> five runs; two modes
    expect(out.trials).toHaveLength(2 * (1 + 1 + 5 + 5 + 5));
    for (const t of out.trials) {
      expect(t, `${t.task_id} ${t.mode}: ${t.error}`).toMatchObject({
        status: 'scored',
        score: 1,
        label: 'pass',
        confidence_level: '2',
      });
      expect(t.tests.total).toBeGreaterThan(0);
      expect(t.tests.failed).toBe(0);
      expect(t.files_changed.length).toBeGreaterThan(0);
    }
    expect(new Set(out.trials.map((t) => t.task_id)).size).toBe(5);
  });

  it('nop scores 0.0 on every task in both modes', () => {
    const out = runJson([
      'run',
      'examples',
      '--agent',
      'nop',
      '--mode',
      'both',
      '--runs',
      '1',
      '--db',
      db,
    ]);
    expect(out.trials).toHaveLength(10);
    for (const t of out.trials) {
      expect(t.status).toBe('scored');
      expect(t.score).toBe(0);
      expect(t.files_changed).toEqual([]);
      // Scoring rules 3 (whitepaper §9.1 rule 2): a navigation run that changes no required file
      // is insufficient_context_read, whatever it read; hinted mode's label is zero_signal.
      expect(t.label).toBe(t.mode === 'navigation' ? 'insufficient_context_read' : 'zero_signal');
      expect(t.tests.failed).toBeGreaterThan(0);
    }
  });
});
