// compare BASE -> CANDIDATE: paired and overlap verdicts per group, label shifts, and the caveats.
import { describe, expect, it } from 'vitest';
import { compareMarkdown } from '../../src/report/compare-markdown.js';
import { compareRuns, datasetVersionDifference, type RunSide } from '../../src/stats/compare.js';
import type { TrialRecord } from '../../src/store/store.js';
import { cell, trial } from '../report/make-trials.js';

const side = (trials: TrialRecord[], config: Record<string, unknown> = {}, id = 'x'): RunSide => ({
  id,
  config: { agent: 'nanocoder', ...config },
  trials,
});

/** One cell per outcome [passed, runs]: tasks t1, t2, ... */
const tasks = (outcomes: [number, number][], over: Partial<TrialRecord> = {}) =>
  outcomes.flatMap(([k, n], i) => cell(k, n, { task_id: `t${i + 1}`, ...over }));
/** 12 single-run tasks: base passes 8; the candidate fails 6 of those and passes nothing new. */
const BASE_12 = [...Array(8).fill([1, 1]), ...Array(4).fill([0, 1])] as [number, number][];
const CAND_12 = [...Array(2).fill([1, 1]), ...Array(10).fill([0, 1])] as [number, number][];

describe('verdicts', () => {
  it('the paired rule sees what the overlap rule cannot: 6 of 12 tasks lost, none gained', () => {
    // Sign-flip p = 2/2^6 = 0.031 (one group: Holm changes nothing). Pooled Wilson intervals
    // 8/12 [39%, 86%] and 2/12 [5%, 45%] overlap: the whitepaper's rule reads noise.
    const c = compareRuns(side(tasks(BASE_12)), side(tasks(CAND_12)));
    const g = c.groups[0];
    expect(g.paired.test.p_value).toBe(2 / 64);
    expect(g.paired.p_holm).toBe(2 / 64);
    expect(g.paired.verdict).toBe('regression');
    expect(g.paired.pass_rate.estimate).toBe(-0.5);
    expect(g.overlap.verdict).toBe('not distinguishable from noise');
    expect([g.verdict, g.verdict_rule]).toEqual(['regression', 'paired']);
    expect(c.rule).toBe('paired');
    expect([c.regressions, c.improvements]).toEqual([1, 0]);
    expect(c.family).toMatchObject({ alpha: 0.05, tested: 1, per_group_alpha: 0.05, unpaired: [] });
    const byOverlap = compareRuns(side(tasks(BASE_12)), side(tasks(CAND_12)), null, {
      rule: 'overlap',
    });
    expect([byOverlap.groups[0].verdict, byOverlap.groups[0].verdict_rule]).toEqual([
      'not distinguishable from noise',
      'overlap',
    ]);
    expect(byOverlap.groups[0].paired.verdict).toBe('regression'); // shown beside, not counted
    expect(byOverlap.regressions).toBe(0);
  });

  it('runs of several agents compare per agent, matched by name, never pooled', () => {
    // Both runs ran nanocoder and bare: nanocoder lost 6 of 12 tasks, bare changed nothing.
    // Pooled, the two agents would halve the drop into one group of 24 cells.
    const c = compareRuns(
      side([...tasks(BASE_12), ...tasks(BASE_12, { agent: 'bare' })], { agent: 'nanocoder,bare' }),
      side(
        [
          ...tasks(CAND_12),
          ...tasks(BASE_12, { agent: 'bare' }),
          ...tasks([[1, 1]], { agent: 'x' }),
        ],
        { agent: 'nanocoder,bare,x' },
      ),
    );
    expect(c.groups.map((g) => [g.agent, g.paired.tasks, g.paired.pass_rate.estimate])).toEqual([
      ['bare', 12, 0],
      ['nanocoder', 12, -0.5],
    ]);
    expect(c.groups[1].paired.p_holm).toBe((2 / 64) * 2); // a family of two groups
    expect(c.only_in_candidate).toEqual(['x · p/m hinted']);
    expect(compareMarkdown(c)).toMatch(/\| nanocoder · p\/m \| hinted \| 12 \|/);
    // A run of one agent against a run of another still compares them (agents differ: a warning).
    const across = compareRuns(side(tasks(BASE_12)), side(tasks(CAND_12, { agent: 'bare' })));
    expect(across.groups.map((g) => [g.agent, g.paired.tasks])).toEqual([[undefined, 12]]);
  });

  it('family-wise: the same evidence in two groups is no longer enough (Holm)', () => {
    // Two models, each p = 0.031: adjusted max(2 x 0.031, 0.031) = 0.0625 > 0.05 for both.
    const c = compareRuns(
      side([...tasks(BASE_12, { model: 'a' }), ...tasks(BASE_12, { model: 'b' })]),
      side([...tasks(CAND_12, { model: 'a' }), ...tasks(CAND_12, { model: 'b' })]),
    );
    expect(c.family.tested).toBe(2);
    expect(c.groups.map((g) => [g.paired.p_holm, g.verdict])).toEqual([
      [0.0625, 'not distinguishable from noise'],
      [0.0625, 'not distinguishable from noise'],
    ]);
    // The smallest detectable change is stated at alpha / 2.
    expect(c.groups[0].paired.alpha).toBe(0.025);
  });

  it('a group that cannot be paired (one shared task) falls back to the overlap rule', () => {
    const c = compareRuns(
      side([...cell(5, 5, { model: 'a' }), ...cell(3, 5, { model: 'b', task_id: 't2' })]),
      side([...cell(0, 5, { model: 'a' }), ...cell(2, 5, { model: 'b', task_id: 't2' })]),
    );
    expect(c.groups.map((g) => [g.model, g.verdict, g.verdict_rule])).toEqual([
      ['a', 'regression', 'overlap'],
      ['b', 'not distinguishable from noise', 'overlap'],
    ]);
    expect(c.groups[0].paired).toMatchObject({ tasks: 1, verdict: null, p_holm: null });
    expect(c.groups[0].paired.detectable).toBeNull();
    expect(c.family).toMatchObject({ tested: 0, unpaired: ['p/a hinted', 'p/b hinted'] });
    expect(c.regressions).toBe(1);
    expect(c.improvements).toBe(0);
  });

  it('the other way round is an improvement, never a regression', () => {
    const c = compareRuns(side(tasks(CAND_12)), side(tasks(BASE_12)));
    expect(c.groups[0].verdict).toBe('improvement');
    expect(c.regressions).toBe(0);
    expect(compareRuns(side(cell(0, 5)), side(cell(5, 5))).groups[0].verdict).toBe('improvement');
  });

  it('1/1 -> 0/1 is noise: one run proves nothing', () =>
    expect(compareRuns(side(cell(1, 1)), side(cell(0, 1))).groups[0].verdict).toBe(
      'not distinguishable from noise',
    ));

  it('modes are compared apart, and there is no pooled row', () => {
    const c = compareRuns(
      side([...tasks(BASE_12), ...tasks(BASE_12, { mode: 'navigation' })]),
      side([...tasks(BASE_12), ...tasks(CAND_12, { mode: 'navigation' })]),
    );
    expect(c.groups.map((g) => [g.mode, g.verdict])).toEqual([
      ['hinted', 'not distinguishable from noise'],
      ['navigation', 'not distinguishable from noise'], // 0.031 x 2 groups = 0.0625
    ]);
    expect(c).not.toHaveProperty('overall');
    const alone = compareRuns(
      side([...tasks(BASE_12), ...cell(5, 5, { mode: 'navigation' })]),
      side([...tasks(BASE_12), ...cell(0, 5, { mode: 'navigation' })]),
    );
    // Navigation has one task (overlap decides it); hinted alone is the family.
    expect(alone.groups.map((g) => [g.mode, g.verdict, g.verdict_rule])).toEqual([
      ['hinted', 'not distinguishable from noise', 'paired'],
      ['navigation', 'regression', 'overlap'],
    ]);
  });

  it('each task weighs once in the headline rates; trials stay pooled for the overlap rule', () => {
    // t1 (tier 3) 5/5 -> 5/5, t2 (tier 1) 0/1 -> 1/1: over tasks 50% -> 100%; pooled 5/6 -> 6/6.
    const c = compareRuns(
      side([...cell(5, 5), ...cell(0, 1, { task_id: 't2' })]),
      side([...cell(5, 5), ...cell(1, 1, { task_id: 't2' })]),
    );
    const g = c.groups[0];
    expect([g.base_tasks.pass_rate, g.candidate_tasks.pass_rate]).toEqual([0.5, 1]);
    expect([g.base.passed, g.base.scored, g.candidate.passed]).toEqual([5, 6, 6]);
    expect(g.base_tasks.tasks).toBe(2);
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
    expect(c.groups[0].paired.tasks).toBe(0);
    expect(c.groups[0].verdict).toBe('not distinguishable from noise');
  });

  it('the same stored runs give the same verdicts, p-values and intervals', () => {
    const a = compareRuns(side(tasks(BASE_12)), side(tasks(CAND_12)));
    const b = compareRuns(side([...tasks(BASE_12)].reverse()), side(tasks(CAND_12)));
    expect(JSON.stringify(b.groups)).toBe(JSON.stringify(a.groups));
  });

  it('nothing shared: says there is nothing to pair or overlap', () => {
    const c = compareRuns(side(cell(1, 1, { model: 'a' })), side(cell(1, 1, { model: 'b' })));
    expect(c.groups).toEqual([]);
    expect(c.warnings.join('\n')).toMatch(
      /nothing compared: the runs share no task scored with the same provider, model and mode/,
    );
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
    const s = c.label_shifts;
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
    const z = c.label_shifts.find((x) => x.label === 'zero_signal')!;
    expect([z.base.count, z.candidate.count, z.distinguishable]).toEqual([20, 3, true]);
  });

  it('a label present on one side only shows 0 on the other', () => {
    const c = compareRuns(
      side(cell(0, 2, {}, 'zero_signal')),
      side(cell(0, 2, {}, 'hallucinated_api')),
    );
    const byLabel = Object.fromEntries(c.label_shifts.map((s) => [s.label, s]));
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
    expect(c.label_scored).toEqual({ base: 5, candidate: 5 });
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
    expect(c.label_scored.base).toBe(1); // t2 only
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
    expect(c.label_shifts.map((s) => s.label)).toEqual(['implementation_error']);
    expect(c.audit).toBe(audit);
    const raw = compareRuns(side(b), side(k));
    expect(raw.label_shifts.map((s) => s.label).sort()).toEqual([
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
