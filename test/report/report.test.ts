// The report model: matrix cells, breakdowns, navigation delta, taxonomy.
import { describe, expect, it } from 'vitest';
import { breakdowns, breakdownValue, tokenBucket } from '../../src/report/breakdown.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { providerMatrix } from '../../src/report/matrix.js';
import { buildReport } from '../../src/report/model.js';
import { navigationDeltas } from '../../src/report/navigation.js';
import type { TaskMeta } from '../../src/report/task-meta.js';
import { taxonomy } from '../../src/report/taxonomy.js';
import { wilson } from '../../src/stats/wilson.js';
import { cell, run, trial } from './make-trials.js';

const meta = (over: Partial<TaskMeta> = {}): TaskMeta => ({
  tier: 1,
  languages: ['python'],
  domain: 'billing',
  reasoning_category: 'arithmetic',
  token_estimate: 1500,
  merged_at: '2026-01-01T00:00:00Z',
  runs: 1,
  ...over,
});

// Issue 23, item 4: a model's headline rate counts each task once.
describe('model rates', () => {
  it('weigh each task once, with the interval over tasks; trials stay pooled beside them', () => {
    // t1 (tier 3): 5/5; t2, t3 (tier 1): 0/1 each. Pooled 5/7 = 71%; each task once: 1/3.
    const trials = [
      ...cell(5, 5),
      ...cell(0, 1, { task_id: 't2' }),
      ...cell(0, 1, { task_id: 't3' }),
    ];
    const r = buildReport(run(), trials, {
      tasks: {
        source: 'snapshot',
        tasks: { t1: meta({ tier: 3, runs: 5 }), t2: meta(), t3: meta() },
        note: null,
      },
      cutoffs: null,
    });
    const m = r.models[0];
    expect(m.rate).toMatchObject({ passed: 5, scored: 7 });
    expect(m.tasks).toMatchObject({ tasks: 3, scored: 7, pass_rate: 1 / 3, method: 'cluster' });
    // Three tasks at 1, 0, 0: wider than the pooled Wilson interval of 5/7 [36%, 92%].
    expect(m.tasks.ci95.high - m.tasks.ci95.low).toBeGreaterThan(
      wilson(5, 7).high - wilson(5, 7).low,
    );
  });
});

describe('provider matrix', () => {
  it('one cell per provider/model/task/mode with pass@1, mean, k/n, interval and labels', () => {
    const trials = [
      trial({ attempt: 1, label: 'incorrect_fix', score: 0 }),
      trial({ attempt: 2, label: 'pass', score: 1 }),
      trial({ attempt: 3, label: 'partial_fix_only', score: 0.5 }),
      trial({ attempt: 4, status: 'error' }),
      trial({ attempt: 5, label: 'pass', score: 1 }),
      trial({ mode: 'navigation' }),
    ];
    const cells = providerMatrix(trials, { tasks: { t1: meta({ tier: 3 }) } });
    expect(cells).toHaveLength(2);
    expect(cells[0]).toMatchObject({
      mode: 'hinted',
      runs: 5,
      pass_at_1: false,
      passed: 2,
      scored: 4,
      errors: 1,
      mean_score: 2.5 / 4,
      ci95: wilson(2, 4),
      labels: { pass: 2, incorrect_fix: 1, partial_fix_only: 1 },
      tier: 3,
      undersampled: true,
    });
    expect(cells[1]).toMatchObject({ mode: 'navigation', pass_at_1: true, undersampled: true });
  });

  it('pass@1 is unknown when attempt 1 was an infra error', () =>
    expect(providerMatrix([trial({ status: 'error' }), trial({ attempt: 2 })])[0].pass_at_1).toBe(
      null,
    ));

  it('sorts provider, model, task, mode', () => {
    const cells = providerMatrix([
      trial({ model: 'b' }),
      trial({ model: 'a', task_id: 't2' }),
      trial({ model: 'a', task_id: 't1', mode: 'navigation' }),
      trial({ model: 'a', task_id: 't1' }),
    ]);
    expect(cells.map((c) => `${c.model} ${c.task_id} ${c.mode}`)).toEqual([
      'a t1 hinted',
      'a t1 navigation',
      'a t2 hinted',
      'b t1 hinted',
    ]);
  });

  it('sorts task ids in natural order: task-2 before task-10', () => {
    const ids = ['task-10', 'task-2', 'task-1', 'task-02b', 'other-9', 'task-100'];
    const cells = providerMatrix(ids.map((task_id) => trial({ task_id })));
    expect(cells.map((c) => c.task_id)).toEqual([
      'other-9',
      'task-1',
      'task-2',
      'task-02b',
      'task-10',
      'task-100',
    ]);
  });
});

describe('breakdowns', () => {
  const tasks = {
    py: meta(),
    poly: meta({
      languages: ['python', 'javascript'],
      token_estimate: 600,
      domain: 'shop',
      tier: 4,
    }),
  };
  const trials = [...cell(1, 1, { task_id: 'py' }), ...cell(0, 1, { task_id: 'poly' })];
  const by = (d: string) => breakdowns(trials, tasks).find((b) => b.dimension === d)!.rows;

  it('a polyglot task counts under each of its languages', () => {
    expect(by('language').map((r) => [r.value, r.rate.passed, r.rate.scored])).toEqual([
      ['javascript', 0, 1],
      ['python', 1, 2],
    ]);
  });

  it('per agent in a run of several: bare and nanocoder are never pooled', () => {
    const both = [...trials, ...cell(0, 1, { task_id: 'py', agent: 'bare' })];
    const rows = breakdowns(both, tasks).find((b) => b.dimension === 'language')!.rows;
    expect(rows.map((r) => [breakdownValue(r), r.rate.passed, r.rate.scored])).toEqual([
      ['nanocoder · javascript', 0, 1],
      ['bare · python', 0, 1],
      ['nanocoder · python', 1, 2],
    ]);
    // One agent: the rows are as they always were.
    expect(by('language').every((r) => r.agent === undefined)).toBe(true);
  });

  it('token density buckets sort by size, not by name', () => {
    expect([500, 999, 1000, 1999, 2000, 9000, 40000].map(tokenBucket)).toEqual([
      '<1k',
      '<1k',
      '1k-2k',
      '1k-2k',
      '2k-4k',
      '8k-16k',
      '>=16k',
    ]);
    expect(by('token_density').map((r) => r.value)).toEqual(['<1k', '1k-2k']);
  });

  it('every dimension, split by mode; without metadata only provider and model', () => {
    expect(breakdowns(trials, tasks).map((b) => b.dimension)).toEqual([
      'provider',
      'model',
      'reasoning_category',
      'language',
      'domain',
      'token_density',
      'tier',
    ]);
    expect(breakdowns(trials, null).map((b) => b.dimension)).toEqual(['provider', 'model']);
    const two = breakdowns(
      [...trials, ...cell(1, 1, { task_id: 'py', mode: 'navigation' })],
      tasks,
    );
    expect(
      two.find((b) => b.dimension === 'domain')!.rows.map((r) => `${r.value} ${r.mode}`),
    ).toEqual(['billing hinted', 'billing navigation', 'shop hinted']);
  });
});

describe('navigation delta', () => {
  it('hinted minus navigation per model, on the tasks run in both modes only', () => {
    const trials = [
      ...cell(5, 5, { model: 'a' }),
      ...cell(0, 5, { model: 'a', mode: 'navigation' }, 'insufficient_context_read'),
      ...cell(5, 5, { model: 'a', task_id: 'hinted-only' }),
      ...cell(1, 1, { model: 'b' }), // no navigation run: no delta
    ];
    const d = navigationDeltas(trials);
    expect(d).toHaveLength(1);
    expect(d[0]).toMatchObject({ model: 'a', tasks: 1, distinguishable: true, mean_delta: 1 });
    expect(d[0].hinted.scored).toBe(5);
    expect(d[0].delta.estimate).toBe(1);
    expect(d[0].delta.low).toBeGreaterThan(0);
  });

  it('a small difference is not a finding', () => {
    const d = navigationDeltas([...cell(1, 1), ...cell(0, 1, { mode: 'navigation' })]);
    expect(d[0].distinguishable).toBe(false);
    expect(d[0].delta.low).toBeLessThan(0);
  });
});

describe('taxonomy', () => {
  it('counts and shares of scored trials, with confidence levels; errors beside', () => {
    const t = taxonomy([
      ...cell(1, 4, {}, 'hallucinated_api'),
      trial({ status: 'error', attempt: 9 }),
    ]);
    expect(t).toMatchObject({ scored: 4, errors: 1 });
    expect(t.labels).toEqual([
      { label: 'hallucinated_api', level: '4', count: 3, share: 0.75 },
      { label: 'pass', level: '2', count: 1, share: 0.25 },
    ]);
    expect(t.groups[0]).toMatchObject({
      scored: 4,
      errors: 1,
      counts: { hallucinated_api: 3, pass: 1 },
    });
  });
});

describe('buildReport', () => {
  it('states the sampling policy from the run config and counts undersampled cells', () => {
    const tasks = { t1: meta({ tier: 3 }), t2: meta({ tier: 1 }) };
    const trials = [...cell(1, 2), ...cell(1, 1, { task_id: 't2' })];
    const r = buildReport(run({ runs: 2 }), trials, {
      tasks: { source: 'snapshot', tasks, note: null },
      cutoffs: null,
    });
    expect(r.sampling).toMatchObject({ kind: 'override', runs_override: 2, undersampled_cells: 1 });
    expect(r.sampling.tiers).toEqual([
      { tier: 1, runs: 2, tasks: 1 },
      { tier: 3, runs: 2, tasks: 1 },
    ]);
    const byTier = buildReport(run(), trials, {
      tasks: { source: 'snapshot', tasks, note: null },
      cutoffs: null,
    });
    expect(byTier.sampling.kind).toBe('tier');
  });

  it('groups infra errors by stage and code (older rows by message), never inside a rate', () => {
    const trials = [
      ...cell(1, 1),
      trial({
        status: 'error',
        error: 'provider: refused (a)',
        error_stage: 'provider',
        error_code: 'unreachable',
        attempt: 2,
      }),
      trial({
        status: 'error',
        error: 'provider: refused (b)',
        error_stage: 'provider',
        error_code: 'unreachable',
        attempt: 3,
      }),
      trial({ status: 'error', error: 'agent: crashed', attempt: 4 }),
    ];
    const r = buildReport(run(), trials, {
      tasks: { source: 'unavailable', tasks: {}, note: 'x' },
      cutoffs: null,
    });
    expect(r.overall).toMatchObject({ scored: 1, passed: 1, errors: 3 });
    expect(r.errors.by_cause.map((e) => [e.cause, e.count, e.message])).toEqual([
      ['provider/unreachable', 2, 'provider: refused (a)'],
      ['agent: crashed', 1, 'agent: crashed'],
    ]);
  });

  it('files read per model, and what each insufficient_context_read trial read', () => {
    const read = (count: number, required: string[], total = 2) => ({
      details: { files_read: { count, bytes: 1, paths: [], required, required_total: total } },
    });
    const trials = [
      trial({ mode: 'navigation', label: 'insufficient_context_read', score: 0, ...read(41, []) }),
      trial({ mode: 'navigation', attempt: 2, label: 'pass', score: 1, ...read(4, ['a', 'b']) }),
      trial({
        mode: 'navigation',
        attempt: 3,
        task_id: 't2',
        label: 'insufficient_context_read',
        ...read(12, ['a']),
      }),
      // No tool calls (a command agent): not in the means.
      trial({ mode: 'navigation', attempt: 4, label: 'zero_signal', score: 0 }),
      trial({ status: 'error', attempt: 5, mode: 'navigation', ...read(99, []) }),
    ];
    const r = buildReport(run(), trials, {
      tasks: { source: 'unavailable', tasks: {}, note: 'x' },
      cutoffs: null,
    });
    expect(r.reading.threshold).toBe(10);
    expect(r.reading.models).toEqual([
      {
        agent: 'nanocoder',
        provider: 'p',
        model: 'm',
        mode: 'navigation',
        trials: 3,
        files_read_mean: (41 + 4 + 12) / 3,
        files_read_max: 41,
        required_read_mean: (0 + 1 + 0.5) / 3,
        insufficient_context_read: 2,
      },
    ]);
    expect(r.reading.examples.map((e) => [e.task_id, e.text])).toEqual([
      ['t1', 'read 41 files, none of the required ones'],
      ['t2', 'read 12 files, 1 of the 2 required ones'],
    ]);
    expect(r.reading.labelled).toBe(2);
    // The light query's flattened columns read the same.
    const flat = buildReport(
      run(),
      [
        trial({
          mode: 'navigation',
          label: 'insufficient_context_read',
          files_read: 20,
          required_read: 0,
          required_total: 3,
        } as never),
      ],
      { tasks: { source: 'unavailable', tasks: {}, note: 'x' }, cutoffs: null },
    );
    expect(flat.reading.examples[0].text).toBe('read 20 files, none of the required ones');
  });

  it('files read per agent too: a run of several agents never pools their reading', () => {
    const read = (count: number) => ({
      details: { files_read: { count, bytes: 1, paths: [], required: [], required_total: 1 } },
    });
    const icr = { mode: 'navigation', label: 'insufficient_context_read' as const, score: 0 };
    const trials = [
      trial({ ...icr, agent: 'nanocoder', ...read(30) }),
      trial({ ...icr, agent: 'bare', ...read(2) }),
    ];
    const r = buildReport(run({ agent: 'nanocoder,bare' }), trials, {
      tasks: { source: 'unavailable', tasks: {}, note: 'x' },
      cutoffs: null,
    });
    expect(r.reading.models.map((m) => [m.agent, m.files_read_mean])).toEqual([
      ['bare', 2],
      ['nanocoder', 30],
    ]);
    const md = renderMarkdown(r);
    expect(md).toContain('| bare · p/m | navigation | 1 | 2.0 / 2 |');
    expect(md).toContain('- t1 · nanocoder · p/m · navigation #1: read 30 files');
  });

  it('follows the audit it is given: Level-4 labels collapse, and the report says on what', () => {
    const trials = [
      ...cell(0, 2, {}, 'hallucinated_api'),
      ...cell(0, 1, { task_id: 't2' }, 'wrong_abstraction_layer'),
    ];
    const audit = {
      run_id: 'r0',
      reviewer: 'ann',
      created_at: '2026-02-01T00:00:00Z',
      items: 20,
      agreed: 17,
      agreement: 0.85,
      required: 0.9,
      collapsed: true,
    };
    const r = buildReport(run(), trials, {
      tasks: { source: 'unavailable', tasks: {}, note: 'x' },
      cutoffs: null,
      audit,
    });
    expect(r.audit).toEqual(audit);
    expect(r.taxonomy.labels.map((l) => [l.label, l.count])).toEqual([['implementation_error', 3]]);
    expect(r.matrix.flatMap((c) => Object.keys(c.labels))).toEqual([
      'implementation_error',
      'implementation_error',
    ]);
  });
});
