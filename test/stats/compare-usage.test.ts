// Tokens and cost per trial and per solved trial beside a comparison's score delta.
import { describe, expect, it } from 'vitest';
import { commentBody } from '../../src/ci/comment.js';
import { compareMarkdown } from '../../src/report/compare-markdown.js';
import { compareRuns, type RunSide } from '../../src/stats/compare.js';
import { usageSummary } from '../../src/stats/usage.js';
import type { TrialRecord } from '../../src/store/store.js';
import { cell, run, trial } from '../report/make-trials.js';

const proxy = (input: number, output: number, cost: number | null) => ({
  proxy: { tokens: { input, output }, cost_usd: cost },
});
const side = (trials: TrialRecord[], id: string): RunSide => ({
  id,
  config: { agent: 'nanocoder' },
  trials,
});

describe('usageSummary', () => {
  it('divides all counted usage by the counted trials and by the passing ones', () => {
    const u = usageSummary([
      trial({ label: 'pass', details: proxy(800, 200, 0.01) }),
      trial({ label: 'incorrect_fix', score: 0, details: proxy(1500, 500, 0.03) }),
      // An infra error was paid for: in the totals, not among the solved.
      trial({ status: 'error', details: proxy(1000, 0, 0.02) }),
      // Not counted by any proxy (a control agent's trial): outside every figure.
      trial({ label: 'pass' }),
    ]);
    expect(u.trials).toBe(3);
    expect(u.passed).toBe(1);
    expect(u.tokens_per_trial).toBe(4000 / 3);
    expect(u.cost_per_trial_usd).toBeCloseTo(0.02, 10);
    expect(u.tokens_per_solved).toBe(4000);
    expect(u.cost_per_solved_usd).toBeCloseTo(0.06, 10);
  });

  it('reads the flattened columns of Store.trialOutcomes as well', () => {
    const u = usageSummary([
      { status: 'scored', label: 'pass', tokens_in: 10, tokens_out: 5, cost_usd: null },
      { status: 'scored', label: 'pass', tokens_in: null },
    ]);
    // One trial counted, without a price: tokens known, cost unknown (not zero).
    expect([u.trials, u.tokens_per_trial, u.cost_per_trial_usd]).toEqual([1, 15, null]);
  });

  it('has no per-solved figure when nothing passed, and nothing when nothing was counted', () => {
    const u = usageSummary(cell(0, 2, { details: proxy(100, 0, 0.5) }));
    expect([u.tokens_per_solved, u.cost_per_solved_usd, u.cost_per_trial_usd]).toEqual([
      null,
      null,
      0.5,
    ]);
    expect(usageSummary(cell(2, 2)).tokens_per_trial).toBeNull();
  });
});

describe('compare and the PR comment show the usage deltas', () => {
  // Base: 2 of 4 pass at 1,000 tokens and $0.01 a trial; candidate: 4 of 4 at 1,500 and $0.02.
  const base = cell(2, 4, { details: proxy(900, 100, 0.01) });
  const cand = cell(4, 4, { details: proxy(1200, 300, 0.02) });

  it('puts base, candidate and the change per group', () => {
    const c = compareRuns(side(base, 'b'), side(cand, 'c'));
    const u = c.groups[0].usage;
    expect(u.base.tokens_per_trial).toBe(1000);
    expect(u.candidate.tokens_per_trial).toBe(1500);
    expect(u.delta.tokens_per_trial).toBe(500);
    expect(u.delta.cost_per_trial_usd).toBeCloseTo(0.01, 10);
    // Per solved: $0.04 over 2 passes = $0.02; $0.08 over 4 = $0.02: the same price per solve.
    expect(u.base.cost_per_solved_usd).toBeCloseTo(0.02, 10);
    expect(u.delta.cost_per_solved_usd).toBeCloseTo(0, 10);
  });

  it('renders them in compare markdown and in the comment', () => {
    const md = compareMarkdown(compareRuns(side(base, 'b'), side(cand, 'c')));
    expect(md).toContain('| tokens / trial (Δ) | cost / trial (Δ) | cost / solved trial (Δ) |');
    expect(md).toContain('| 1.0k → 1.5k (+500) | $0.01 → $0.02 (+$0.01) | $0.02 → $0.02 (±$0) |');
    const body = commentBody(
      { run: run({ agent: 'nanocoder' }, 'c'), trials: cand },
      { run: run({ agent: 'nanocoder' }, 'b'), trials: base },
    );
    expect(body).toContain('| 1.0k → 1.5k (+500) | $0.01 → $0.02 (+$0.01) · $0.02 → $0.02 (±$0) |');
  });

  it('says "—" for groups no proxy counted (control agents)', () => {
    const md = compareMarkdown(compareRuns(side(cell(1, 2), 'b'), side(cell(2, 2), 'c')));
    expect(md).toMatch(/\| — \| — \| — \|/);
  });
});
