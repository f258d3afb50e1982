// Issue #6: the proxy's token and cost counts feed the report (per model and mode).
import { describe, expect, it } from 'vitest';
import {
  costPerSolvedText,
  costPerTrialText,
  costText,
  tokensText,
} from '../../src/report/format.js';
import { type ReportTrial, usageTotals } from '../../src/report/model.js';

const trial = (over: Partial<ReportTrial>): ReportTrial =>
  ({
    task_id: 't',
    provider: 'p',
    model: 'm',
    mode: 'hinted',
    attempt: 1,
    status: 'scored',
    score: 1,
    label: 'pass',
    flags: [],
    error: null,
    ...over,
  }) as ReportTrial;

describe('usage totals', () => {
  it('sums the flattened columns and the details.proxy form alike', () => {
    const u = usageTotals([
      trial({ tokens_in: 1000, tokens_out: 100, cost_usd: 0.01 }),
      trial({ details: { proxy: { tokens: { input: 3000, output: 300 }, cost_usd: 0.03 } } }),
      trial({ tokens_in: null, tokens_out: null, cost_usd: null }), // control agent: not counted
    ]);
    expect(u).toEqual({ trials: 2, input_tokens: 4000, output_tokens: 400, cost_usd: 0.04 });
    expect(tokensText(u)).toBe('2.0k / 200');
    expect(costText(u)).toBe('$0.0400');
  });

  it('has no cost unless every counted trial was priced, and nothing without a proxy', () => {
    const u = usageTotals([
      trial({ tokens_in: 10, tokens_out: 1, cost_usd: 0.01 }),
      trial({ tokens_in: 10, tokens_out: 1, cost_usd: null }),
    ]);
    expect(u.cost_usd).toBeNull();
    expect(costText(u)).toBe('—');
    expect(usageTotals([trial({})])).toEqual({
      trials: 0,
      input_tokens: 0,
      output_tokens: 0,
      cost_usd: null,
    });
    expect(tokensText(usageTotals([]))).toBe('—');
  });
});

describe('cost per trial and per solved trial (issue 26: a total read as per trial)', () => {
  it('divides the priced total by the counted trials and by the passing ones', () => {
    const u = { trials: 4, input_tokens: 0, output_tokens: 0, cost_usd: 0.2 };
    expect(costPerTrialText(u)).toBe('$0.0500');
    expect(costPerSolvedText(u, 1)).toBe('$0.2000');
    expect(costPerSolvedText(u, 0)).toBe('—'); // nothing solved: no price per solution
    expect(costPerTrialText({ trials: 4, cost_usd: null })).toBe('—');
  });
});
