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

  it('leaves tier 3-4 cells with fewer than five scored runs out of every verdict, naming them', () => {
    // 4/4 -> 0/4 on a tier-3 task would be a regression ([51%, 100%] vs [0%, 49%]).
    const base = [...cell(4, 4), ...cell(1, 1, { task_id: 't2', model: 'm2' })];
    const cand = [...cell(0, 4), ...cell(1, 1, { task_id: 't2', model: 'm2' })];
    expect(compareRuns(side(base), side(cand)).regressions).toBe(1); // tiers unknown: counted
    const tiers = { t1: 3, t2: 1 };
    const c = compareRuns({ ...side(base), tiers }, { ...side(cand), tiers });
    expect(c.excluded_undersampled).toEqual(['t1 p/m hinted']);
    expect(c.regressions).toBe(0);
    expect(c.overall.base).toMatchObject({ passed: 1, scored: 1 }); // t2 only
    expect(c.groups.map((g) => [g.model, g.verdict])).toEqual([
      ['m2', 'not distinguishable from noise'],
    ]);
    expect(c.only_in_base).toEqual([]); // p/m is in both runs: left out for sampling, not absent
    expect(c.warnings.join('\n')).toMatch(
      /1 tier 3-4 cell\(s\) left out of every verdict: fewer than 5 scored runs on a side.*: t1 p\/m hinted/,
    );
    // Five scored runs on both sides: counted again.
    const five = compareRuns({ ...side(cell(5, 5)), tiers }, { ...side(cell(0, 5)), tiers });
    expect(five.excluded_undersampled).toEqual([]);
    expect(five.regressions).toBeGreaterThan(0);
  });

  it('warns first when the runs were scored by different rules, and says which NanoBench', () => {
    const c = compareRuns(
      side(cell(1, 1), { scoring_rules_version: 1, nanobench_version: '0.1.0' }),
      side(cell(1, 1), { scoring_rules_version: 2, nanobench_version: '0.2.0' }),
    );
    expect(c.warnings[0]).toMatch(
      /^scored by different rules: base scoring rules 1, candidate 2; a label shift may come from the rules/,
    );
    expect(c.warnings[1]).toBe('NanoBench differs: base 0.1.0, candidate 0.2.0');
    expect(c.versions).toEqual({
      nanobench: { base: '0.1.0', candidate: '0.2.0' },
      scoring_rules: { base: 1, candidate: 2 },
    });
    const old = compareRuns(side(cell(1, 1)), side(cell(1, 1), { scoring_rules_version: 2 }));
    expect(old.warnings[0]).toMatch(/base scoring rules not recorded \(1 or older\), candidate 2/);
    const same = compareRuns(
      side(cell(1, 1), { scoring_rules_version: 2, nanobench_version: '0.2.0' }),
      side(cell(1, 1), { scoring_rules_version: 2, nanobench_version: '0.2.0' }),
    );
    expect(same.warnings).toEqual([]);
  });

  it('applies the audit to both sides: Level-4 labels collapse below 90% agreement', () => {
    const b = cell(0, 2, {}, 'hallucinated_api');
    const k = cell(0, 2, {}, 'wrong_abstraction_layer');
    const audit = {
      run_id: 'r',
      reviewer: 'ann',
      created_at: '2026-01-01T00:00:00Z',
      items: 20,
      agreed: 17,
      agreement: 0.85,
      required: 0.9,
      collapsed: true,
    };
    const c = compareRuns(side(b), side(k), audit);
    expect(c.overall.label_shifts.map((s) => s.label)).toEqual(['implementation_error']);
    expect(c.audit).toBe(audit);
    const raw = compareRuns(side(b), side(k));
    expect(raw.overall.label_shifts.map((s) => s.label).sort()).toEqual([
      'hallucinated_api',
      'wrong_abstraction_layer',
    ]);
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
