// compare BASE -> CANDIDATE: verdicts by the overlap rule, label shifts, and the caveats.
import { describe, expect, it } from 'vitest';
import { compareRuns, datasetVersionDifference, type RunSide } from '../../src/stats/compare.js';
import type { TrialRecord } from '../../src/store/store.js';
import { cell, trial } from '../report/make-trials.js';

const side = (trials: TrialRecord[], config: Record<string, unknown> = {}, id = 'x'): RunSide => ({
  id,
  config: { agent: 'nanocoder', ...config },
  trials,
});

describe('verdicts', () => {
  it('5/5 -> 0/5 is a regression; 3/5 -> 2/5 on another model is noise', () => {
    const c = compareRuns(
      side([...cell(5, 5, { model: 'a' }), ...cell(3, 5, { model: 'b', task_id: 't2' })]),
      side([...cell(0, 5, { model: 'a' }), ...cell(2, 5, { model: 'b', task_id: 't2' })]),
    );
    expect(c.groups.map((g) => [g.model, g.verdict])).toEqual([
      ['a', 'regression'],
      ['b', 'not distinguishable from noise'],
    ]);
    expect(c.groups[0].mean_delta).toBe(-1);
    // overall 8/10 vs 2/10: [0.49, 0.94] vs [0.06, 0.51] overlap
    expect(c.overall.base).toMatchObject({ passed: 8, scored: 10 });
    expect(c.overall.verdict).toBe('not distinguishable from noise');
    expect(c.regressions).toBe(1);
    expect(c.improvements).toBe(0);
  });

  it('the other way round is an improvement, never a regression', () => {
    const c = compareRuns(side(cell(0, 5)), side(cell(5, 5)));
    expect(c.groups[0].verdict).toBe('improvement');
    expect(c.overall.verdict).toBe('improvement');
    expect(c.regressions).toBe(0);
  });

  it('1/1 -> 0/1 is noise: one run proves nothing', () =>
    expect(compareRuns(side(cell(1, 1)), side(cell(0, 1))).groups[0].verdict).toBe(
      'not distinguishable from noise',
    ));

  it('modes are compared apart', () => {
    const c = compareRuns(
      side([...cell(5, 5), ...cell(5, 5, { mode: 'navigation' })]),
      side([...cell(5, 5), ...cell(0, 5, { mode: 'navigation' })]),
    );
    expect(c.groups.map((g) => [g.mode, g.verdict])).toEqual([
      ['hinted', 'not distinguishable from noise'],
      ['navigation', 'regression'],
    ]);
  });

  it('infra errors stay beside the rates: 5/5 + 3 errors -> 0/5 is still 5/5 vs 0/5', () => {
    const errs = [6, 7, 8].map((attempt) => trial({ status: 'error', attempt }));
    const c = compareRuns(side([...cell(5, 5), ...errs]), side(cell(0, 5)));
    expect(c.groups[0].base).toMatchObject({ passed: 5, scored: 5, errors: 3 });
    expect(c.groups[0].verdict).toBe('regression');
  });

  it('all errors on one side: no evidence, never a regression', () => {
    const errs = [1, 2, 3, 4, 5].map((attempt) => trial({ status: 'error', attempt }));
    const c = compareRuns(side(cell(5, 5)), side(errs));
    expect(c.groups[0].candidate.scored).toBe(0);
    expect(c.groups[0].verdict).toBe('not distinguishable from noise');
  });

  it('flags non-deterministic groups', () => {
    const c = compareRuns(side(cell(1, 2)), side(cell(1, 2, { flags: ['non_deterministic'] })));
    expect(c.groups[0].non_deterministic).toBe(true);
    expect(c.warnings.join('\n')).toMatch(/non-deterministic.*p\/m hinted/);
  });
});

describe('label shifts', () => {
  it('shares among scored trials, largest change first, with the overlap rule', () => {
    // base: 13 of 21 insufficient_context_read (62%); candidate: 4 of 19 (21%)
    const base = cell(8, 21, { mode: 'navigation' }, 'insufficient_context_read');
    const cand = [
      ...cell(15, 19, { mode: 'navigation' }, 'insufficient_context_read'),
      trial({ status: 'error', mode: 'navigation', attempt: 99 }),
    ];
    const c = compareRuns(side(base), side(cand));
    const s = c.overall.label_shifts;
    expect(s[0].label).toBe('insufficient_context_read');
    expect(s[0].base).toEqual({ count: 13, share: 13 / 21 });
    expect(s[0].candidate).toEqual({ count: 4, share: 4 / 19 });
    // [41%, 79%] and [9%, 43%] still overlap: the whitepaper's own example needs more runs
    expect(s[0].distinguishable).toBe(false);
    expect(s.find((x) => x.label === 'pass')).toMatchObject({
      base: { count: 8 },
      candidate: { count: 15 },
    });
  });

  it('a shift is distinguishable only when the share intervals separate', () => {
    const c = compareRuns(
      side(cell(5, 25, {}, 'zero_signal')),
      side(cell(22, 25, {}, 'zero_signal')),
    );
    const z = c.overall.label_shifts.find((x) => x.label === 'zero_signal')!;
    expect([z.base.count, z.candidate.count, z.distinguishable]).toEqual([20, 3, true]);
  });

  it('a label present on one side only shows 0 on the other', () => {
    const c = compareRuns(
      side(cell(0, 2, {}, 'zero_signal')),
      side(cell(0, 2, {}, 'hallucinated_api')),
    );
    const byLabel = Object.fromEntries(c.overall.label_shifts.map((s) => [s.label, s]));
    expect(byLabel.zero_signal.candidate).toEqual({ count: 0, share: 0 });
    expect(byLabel.hallucinated_api.base).toEqual({ count: 0, share: 0 });
    expect(byLabel.zero_signal.distinguishable).toBe(false);
  });
});

describe('caveats', () => {
  it('compares shared cells only and says which tasks and groups were left out', () => {
    const c = compareRuns(
      side([...cell(5, 5), ...cell(5, 5, { task_id: 'old' }), ...cell(1, 1, { model: 'gone' })]),
      side([...cell(5, 5), ...cell(0, 5, { task_id: 'new' })]),
    );
    expect(c.overall.base.scored).toBe(5);
    expect(c.overall.candidate.scored).toBe(5);
    expect(c.groups[0].verdict).toBe('not distinguishable from noise');
    expect(c.tasks).toEqual({ shared: 1, only_in_base: ['old'], only_in_candidate: ['new'] });
    expect(c.only_in_base).toEqual(['p/gone hinted']);
    const w = c.warnings.join('\n');
    expect(w).toMatch(
      /task sets differ: compared on the 1 shared task\(s\); only in base: old; only in candidate: new/,
    );
    expect(w).toMatch(/not compared.*p\/gone hinted \(base\)/);
  });

  it('says when the Nanocoder builds differ', () => {
    const info = (v: string, commit?: string) => ({
      agent_info: {
        nanocoder_version: v,
        nanocoder_path: '/x/cli.js',
        ...(commit && { nanocoder_commit: commit }),
      },
    });
    const same = compareRuns(side(cell(1, 1), info('1.30.0')), side(cell(1, 1), info('1.30.0')));
    expect(same.warnings).toEqual([]);
    const c = compareRuns(
      side(cell(1, 1), info('1.30.0')),
      side(cell(1, 1), info('1.30.0', 'abc123')),
    );
    expect(c.warnings.join('\n')).toMatch(
      /Nanocoder differs: base 1\.30\.0, \/x\/cli\.js; candidate 1\.30\.0, abc123/,
    );
  });

  it('says when agents, sampling or task contents differ', () => {
    const c = compareRuns(
      side(cell(1, 1), { agent: 'oracle', task_digests: { t1: 'aaa' } }),
      side(cell(1, 1), { agent: 'nop', runs: 3, task_digests: { t1: 'bbb' } }),
    );
    const w = c.warnings.join('\n');
    expect(w).toMatch(/agents differ: base oracle, candidate nop/);
    expect(w).toMatch(/sampling differs: base runs by tier, candidate --runs 3/);
    expect(w).toMatch(/task content differs for 1 shared task\(s\): t1/);
  });

  it('warns when a tier 3-4 cell has fewer than five scored runs', () => {
    const tiers = { t1: 3, t2: 1 };
    const c = compareRuns(
      { ...side([...cell(3, 3), ...cell(1, 1, { task_id: 't2' })]), tiers },
      { ...side([...cell(0, 3), ...cell(0, 1, { task_id: 't2' })]), tiers },
    );
    expect(c.warnings.join('\n')).toMatch(
      /1 tier 3-4 cell\(s\) have fewer than 5 scored runs on a side \(t1 p\/m hinted\)/,
    );
  });
});

// Issue 18: runs over different dataset versions are never compared silently.
describe('dataset versions', () => {
  const v = (version: string | null) => ({
    dataset_versions: [{ path: '/d', name: 'ds', version, digest: null, archived: false }],
  });

  it('differing versions are named; equal ones, and paths, are not a difference', () => {
    expect(datasetVersionDifference(side([], v('1.0.0')), side([], v('1.1.0')))).toBe(
      'the runs are over different dataset versions: base ds 1.0.0, candidate ds 1.1.0',
    );
    const moved = { dataset_versions: [{ ...v('1.0.0').dataset_versions[0], path: '/elsewhere' }] };
    expect(datasetVersionDifference(side([], v('1.0.0')), side([], moved))).toBeUndefined();
    const c = compareRuns(side(cell(1, 1), v('1.0.0')), side(cell(1, 1), v('1.1.0')));
    expect(c.warnings[0]).toMatch(
      /^the runs are over different dataset versions: .*; compared on the tasks they share/,
    );
  });

  it('a run that predates version records: the comparison says it cannot tell', () => {
    expect(datasetVersionDifference(side([], {}), side([], v('1.0.0')))).toBeUndefined();
    const c = compareRuns(side(cell(1, 1)), side(cell(1, 1), v('1.0.0')));
    expect(c.warnings).toContain(
      'the base run predates dataset version records: whether both ran the same dataset version is unknown',
    );
  });
});
