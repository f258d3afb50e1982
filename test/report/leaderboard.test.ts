// The leaderboard's ranking: pass@1 per task; a row's rank is one more than the rows above it that
// are better beyond noise, by the paired test (Holm over the pairs) or, with fewer than six
// shared tasks, the overlap rule; rows not separated from the one above share its rank.
import { describe, expect, it } from 'vitest';
import {
  buildLeaderboard,
  type LeaderboardEntry,
  ranksOf,
  separations,
} from '../../src/report/leaderboard.js';
import { leaderboardMarkdown } from '../../src/report/leaderboard-markdown.js';
import type { ReportTrial } from '../../src/report/model.js';
import type { TaskResult } from '../../src/stats/tasks.js';
import { trial } from './make-trials.js';

const OPTS = {
  dataset: 'ds@1.0.0',
  mode: 'hinted',
  datasetTasks: 12,
  datasetTasksSource: 'manifest',
} as const;

/** One trial per task: task i passes when pass(i). */
function model(
  name: string,
  tasks: number,
  pass: (i: number) => boolean,
  over: Partial<ReportTrial> = {},
) {
  return Array.from({ length: tasks }, (_, i) =>
    trial({
      task_id: `t${i + 1}`,
      provider: 'p',
      model: name,
      label: pass(i) ? 'pass' : 'incorrect_fix',
      score: pass(i) ? 1 : 0,
      // the proxy's flattened counts (tokens_in, cost_usd) ride along as a report reads them
      ...(over as Parameters<typeof trial>[0]),
    }),
  ) as ReportTrial[];
}

const entry = (trials: ReportTrial[], over: Partial<LeaderboardEntry> = {}): LeaderboardEntry => ({
  db: 'a.sqlite',
  run_id: 'r1',
  agent: 'nanocoder',
  nanocoder_version: '1.30.0',
  trials,
  ...over,
});

const results = (passes: boolean[]): TaskResult[] =>
  passes.map((p, i) => ({
    task_id: `t${i + 1}`,
    scored: 1,
    passed: p ? 1 : 0,
    score_sum: p ? 1 : 0,
  }));

describe('buildLeaderboard', () => {
  it('separates rows the paired test tells apart and ties the ones it cannot', () => {
    // 12 shared tasks: a solves all, b 3 of them, c 2 (b and c differ on one task only).
    const b = buildLeaderboard(
      [
        entry([
          ...model('c', 12, (i) => i < 2),
          ...model('a', 12, () => true),
          ...model('b', 12, (i) => i < 3),
        ]),
      ],
      OPTS,
    );
    expect(b.rows.map((r) => [r.model, r.rank, r.tied])).toEqual([
      ['a', 1, false],
      ['b', 2, false],
      ['c', 2, true],
    ]);
    const [, ab, bc] = b.rows.map((r) => r.versus_above);
    expect(ab).toMatchObject({ rule: 'paired', shared_tasks: 12, separated: true });
    // 9 tasks all one way: exact two-sided p = 2/2^9. Holm over the three pairs (a-c has 10
    // tasks one way, p = 2/2^10, first step x3; a-b second step x2): max(6, 8)/2^10.
    expect(ab?.p_value).toBeCloseTo(2 / 2 ** 9, 10);
    expect(ab?.p_holm).toBeCloseTo(8 / 2 ** 10, 10);
    expect(bc).toMatchObject({ rule: 'paired', separated: false });
    // c is worse than a beyond noise too: that is what sets its rank.
    expect(b.rows[2].below).toEqual(['p/a']);
    expect(b.rows[0].coverage).toEqual({ tasks: 12, dataset_tasks: 12, whole: true });
    expect(b.rows[1].failure_labels).toEqual([{ label: 'incorrect_fix', count: 9 }]);
  });

  it('ties chain: a row tied with a tied row keeps the rank of the first', () => {
    const s = separations([
      results(Array(8).fill(true)),
      results([...Array(7).fill(true), false]),
      results([...Array(6).fill(true), false, false]),
    ]);
    expect(s.map((above) => above.map((x) => x.separated))).toEqual([[], [false], [false, false]]);
    const b = buildLeaderboard(
      [
        entry([
          ...model('x', 8, () => true),
          ...model('y', 8, (i) => i < 7),
          ...model('z', 8, (i) => i < 6),
        ]),
      ],
      OPTS,
    );
    expect(b.rows.map((r) => `${r.model}:${r.rank}${r.tied ? '=' : ''}`)).toEqual([
      'x:1',
      'y:1=',
      'z:1=',
    ]);
  });

  it('below six shared tasks the overlap rule decides, and no shared task ties', () => {
    const s = separations([
      results([true, true, true, true, true]),
      results([false, false, false, false, false]),
      results([false, false, false, false, false]).map((r) => ({ ...r, task_id: `u${r.task_id}` })),
    ]);
    // 5/5 against 0/5: the Wilson intervals [57-100%] and [0-43%] do not overlap.
    expect(s[1][0]).toMatchObject({
      rule: 'overlap',
      shared_tasks: 5,
      separated: true,
      p_value: null,
    });
    expect(s[2][1]).toMatchObject({ rule: 'overlap', shared_tasks: 0, separated: false });
    // The third is worse than the first on nothing shared either: only "=2" after the second.
    expect(ranksOf(s)).toEqual([1, 2, 2]);
    // 4 of 5 against 1 of 5 overlap: tied.
    expect(
      separations([
        results([true, true, true, true, false]),
        results([true, false, false, false, false]),
      ])[1][0],
    ).toMatchObject({ rule: 'overlap', separated: false });
  });

  it('a lower row that does better on the shared tasks is tied, not ranked apart', () => {
    // above: 6 of 12 tasks overall but the 8 tasks it shares with below are its worst.
    const above = results([...Array(8).fill(false), true, true, true, true]);
    const below = results(Array(8).fill(true).concat([false]));
    const s = separations([above.slice(0), below.slice(0, 8)]);
    expect(s[1][0]).toMatchObject({ rule: 'paired', shared_tasks: 8, separated: false });
  });

  it('a row measured on few tasks does not bridge two rows the data separate', () => {
    // "sparse" ran one task (and solved it); "weak" solved 2 of the 12 "strong" solved.
    const b = buildLeaderboard(
      [
        entry([
          ...model('strong', 12, () => true),
          ...model('sparse', 1, () => true),
          ...model('weak', 12, (i) => i < 2),
        ]),
      ],
      OPTS,
    );
    expect(b.rows.map((r) => `${r.model}:${r.tied ? '=' : ''}${r.rank}`)).toEqual([
      'strong:1',
      'sparse:=1',
      'weak:2',
    ]);
    // Against the row directly above (sparse) it is tied; against strong it is worse.
    expect(b.rows[2].versus_above).toMatchObject({
      rule: 'overlap',
      shared_tasks: 1,
      separated: false,
    });
    expect(b.rows[2].below).toEqual(['p/strong']);
    expect(leaderboardMarkdown(b)).toContain(
      '- 2 p/weak vs p/sparse: 1 shared task (too few for the paired test, which needs 6): their 95% intervals on them overlap; worse beyond noise than: p/strong',
    );
  });

  it('keeps Nanocoder versions apart, pools runs of one row per task, and counts errors beside', () => {
    const b = buildLeaderboard(
      [
        entry(
          model('m', 2, () => true),
          { run_id: 'r1' },
        ),
        entry(
          [
            ...model('m', 2, (i) => i === 0, { attempt: 2 }),
            trial({
              task_id: 't1',
              provider: 'p',
              model: 'm',
              status: 'error',
              error_stage: 'provider',
              error_code: 'rate_limited',
              attempt: 3,
            }) as ReportTrial,
          ],
          { run_id: 'r2', db: 'b.sqlite' },
        ),
        entry(
          model('m', 2, () => false),
          { run_id: 'r3', nanocoder_version: '1.31.0' },
        ),
      ],
      { ...OPTS, datasetTasks: 3 },
    );
    expect(b.rows).toHaveLength(2);
    const [top, other] = b.rows;
    expect(top).toMatchObject({ model: 'm', nanocoder_version: '1.30.0' });
    expect(top.runs).toEqual([
      { db: 'a.sqlite', run_id: 'r1' },
      { db: 'b.sqlite', run_id: 'r2' },
    ]);
    // t1: 2/2, t2: 1/2 -> pass@1 per task 0.75; pooled 3/4 with one infra error beside.
    expect(top.tasks.pass_rate).toBe(0.75);
    expect(top.trials).toMatchObject({ passed: 3, scored: 4, errors: 1 });
    expect(top.errors_by_cause).toEqual([{ cause: 'provider/rate_limited', count: 1 }]);
    expect(top.coverage).toEqual({ tasks: 2, dataset_tasks: 3, whole: false });
    expect(other.nanocoder_version).toBe('1.31.0');
  });

  it('gives tokens and cost per trial and per solved task from the proxy counts', () => {
    const usage = (cost: number | null) => ({ tokens_in: 900, tokens_out: 100, cost_usd: cost });
    const b = buildLeaderboard(
      [
        entry([
          ...model('paid', 4, (i) => i < 2, usage(0.01)),
          ...model('free', 2, () => false, usage(null)),
        ]),
      ],
      OPTS,
    );
    const paid = b.rows.find((r) => r.model === 'paid')!;
    expect(paid.usage).toMatchObject({
      counted_trials: 4,
      tokens_per_trial: 1000,
      tokens_per_solved: 2000,
      cost_usd: 0.04,
    });
    expect(paid.usage.cost_per_trial_usd).toBeCloseTo(0.01, 10);
    expect(paid.usage.cost_per_solved_usd).toBeCloseTo(0.02, 10);
    // No price: no cost; nothing solved: no per-solved figure.
    expect(b.rows.find((r) => r.model === 'free')!.usage).toMatchObject({
      cost_per_trial_usd: null,
      tokens_per_solved: null,
      cost_per_solved_usd: null,
    });
    const md = leaderboardMarkdown(b);
    expect(md).toContain('| 1 | p/paid | 1.30.0 | 50% [');
    expect(md).toContain('| 1.0k | $0.010 | 2.0k | $0.020 | incorrect_fix ×2 | 4/12 (partial) |');
  });
});
