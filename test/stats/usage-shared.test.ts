// One reader of the proxy's counts (src/stats/usage.ts): the report's totals, the leaderboard's
// per-trial and per-solved columns and compare's summary are the same figures of the same trials.
import { describe, expect, it } from 'vitest';
import { buildLeaderboard } from '../../src/report/leaderboard.js';
import { type ReportTrial, usageTotals as reportTotals } from '../../src/report/model.js';
import { usagePer, usageSummary, usageTotals } from '../../src/stats/usage.js';
import { trial } from '../report/make-trials.js';

const proxy = (input: number, output: number, cost: number | null) => ({
  proxy: { tokens: { input, output }, cost_usd: cost },
});

const trials = (): ReportTrial[] =>
  [
    trial({ task_id: 't1', details: proxy(800, 200, 0.01) }),
    trial({ task_id: 't2', label: 'incorrect_fix', score: 0, details: proxy(1500, 500, 0.03) }),
    trial({ task_id: 't3', status: 'error', details: proxy(1000, 0, 0.02) }),
    trial({ task_id: 't4', details: proxy(600, 400, 0.02) }),
  ] as ReportTrial[];

describe('the usage of src/stats/usage.ts, shared', () => {
  it('the report re-exports the one usageTotals', () => {
    expect(reportTotals).toBe(usageTotals);
    expect(usageTotals(trials())).toEqual({
      trials: 4,
      input_tokens: 3900,
      output_tokens: 1100,
      cost_usd: 0.08,
    });
  });

  it('usagePer divides the totals by the counted trials and by the given passes', () => {
    const u = usagePer(usageTotals(trials()), 2);
    expect(u).toEqual({
      trials: 4,
      passed: 2,
      tokens_per_trial: 1250,
      cost_per_trial_usd: 0.02,
      tokens_per_solved: 2500,
      cost_per_solved_usd: 0.04,
    });
    expect(usagePer(usageTotals(trials()), 0).cost_per_solved_usd).toBeNull();
    // nothing counted: no figure, whatever passed
    expect(usagePer(usageTotals([]), 3)).toMatchObject({
      tokens_per_trial: null,
      tokens_per_solved: null,
      cost_per_solved_usd: null,
    });
  });

  it("the leaderboard's usage columns are compare's usageSummary of the row's trials", () => {
    const b = buildLeaderboard(
      [
        {
          db: 'a.sqlite',
          run_id: 'r1',
          agent: 'nanocoder',
          nanocoder_version: '1.30.0',
          trials: trials(),
        },
      ],
      { dataset: 'ds@1', mode: 'hinted', datasetTasks: 4, datasetTasksSource: 'manifest' },
    );
    const s = usageSummary(trials());
    expect(b.rows[0].usage).toEqual({
      counted_trials: s.trials,
      tokens_per_trial: s.tokens_per_trial,
      cost_per_trial_usd: s.cost_per_trial_usd,
      tokens_per_solved: s.tokens_per_solved,
      cost_per_solved_usd: s.cost_per_solved_usd,
      cost_usd: 0.08,
    });
  });
});
