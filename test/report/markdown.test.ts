// Markdown and HTML rendering: PR-comment size, markers, escaping, task metadata sources.
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCutoffs } from '../../src/config/cutoffs.js';
import { renderHtml } from '../../src/report/html.js';
import { MARKDOWN_BUDGET, renderMarkdown } from '../../src/report/markdown.js';
import { buildReport } from '../../src/report/model.js';
import { resolveTaskMeta, type TaskMeta } from '../../src/report/task-meta.js';
import type { TrialDetails } from '../../src/trial/details.js';
import { EXAMPLES, tempDir } from '../helpers/cli.js';
import { cell, run, trial } from './make-trials.js';

const meta = (i: number): TaskMeta => ({
  tier: (i % 4) + 1,
  languages: i % 3 ? ['python'] : ['python', 'javascript'],
  domain: `domain-${i % 20}`,
  reasoning_category: `category-${i % 5}`,
  token_estimate: 300 * i,
  merged_at: '2026-01-01T00:00:00Z',
  runs: 1,
});

function bigReport() {
  const tasks = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`task-${i}`, meta(i)]));
  const trials = Object.keys(tasks).flatMap((task_id, i) =>
    ['m1', 'm2', 'm3'].flatMap((model) =>
      ['hinted', 'navigation'].flatMap((mode) => cell(i % 2, 2, { task_id, model, mode })),
    ),
  );
  return buildReport(run(), trials, {
    tasks: { source: 'snapshot', tasks, note: null },
    cutoffs: null,
  });
}

describe('markdown', () => {
  it('fits a PR comment: the matrix is cut to the budget, with a note', () => {
    const r = bigReport();
    expect(r.matrix).toHaveLength(1800);
    const md = renderMarkdown(r);
    expect(md.length).toBeLessThan(MARKDOWN_BUDGET);
    expect(md.length).toBeGreaterThan(MARKDOWN_BUDGET - 2000); // the space is used
    const shown = md.split('\n').filter((l) => /^\| p\/m\d \| task-/.test(l)).length;
    expect(shown).toBeGreaterThan(100);
    expect(md).toContain(`_${1800 - shown} of 1800 matrix rows not shown to fit a PR comment`);
    expect(md).toMatch(/rows not shown \(see --format json or html\)/); // long breakdowns cut too
  });

  it('a small run is shown whole, with its sections', () => {
    const trials = [
      ...cell(1, 1, { flags: ['non_deterministic'] }),
      ...cell(0, 1, { mode: 'navigation' }, 'insufficient_context_read'),
      trial({ status: 'error', attempt: 2, error: 'provision: clone | failed' }),
    ];
    const md = renderMarkdown(
      buildReport(run(), trials, {
        tasks: { source: 'snapshot', tasks: { t1: meta(3) }, note: null },
        cutoffs: null,
      }),
    );
    for (const s of [
      '## Models',
      '## Navigation delta',
      '## Failure taxonomy',
      '## Provider matrix',
      '## Infra errors',
    ])
      expect(md).toContain(s);
    // One task: its rate's interval is that cell's Wilson interval; trials passed beside it.
    expect(md).toContain(
      '| p/m · ⚠ non-deterministic | hinted | 1 | 100% [21–100%] | ±40 pp | 1/1 (100%) | 1.00 | 1 |',
    );
    expect(md).toContain('With 1 task each rate here is known to within ±40 pp');
    expect(md).toContain('Sampling: by tier');
    expect(md).toContain('provision: clone | failed'); // inside backticks: no table to break
    expect(md).not.toContain('rows not shown');
    expect(md).toContain('No Level-4 audit recorded');
    // A labelled trial stored before files read were (no telemetry): counted, nothing invented.
    expect(md).toContain('| p/m | navigation | 0 | — | — | 1 |');
  });

  it('context reading: files read per model and what insufficient_context_read trials read', () => {
    const read = (count: number, required: string[]) => ({
      details: { files_read: { count, bytes: 10, paths: [], required, required_total: 1 } },
    });
    const trials = [
      trial({ mode: 'navigation', label: 'insufficient_context_read', score: 0, ...read(41, []) }),
      trial({ mode: 'navigation', attempt: 2, label: 'pass', score: 1, ...read(3, ['a']) }),
    ];
    const r = buildReport(run(), trials, {
      tasks: { source: 'snapshot', tasks: { t1: meta(1) }, note: null },
      cutoffs: null,
    });
    const md = renderMarkdown(r);
    expect(md).toContain('## Context reading');
    expect(md).toMatch(/changed none of the required files, whatever it read/);
    expect(md).toMatch(/at least 10 files is also flagged context_explosion/);
    expect(md).toContain('| p/m | navigation | 2 | 22.0 / 41 | 50% | 1 |');
    expect(md).toContain('- t1 · p/m · navigation #1: read 41 files, none of the required ones');
    const html = renderHtml(r);
    expect(html).toContain('<section id="reading"><h2>Context reading</h2>');
    expect(html).toContain('t1 · p/m · navigation #1: read 41 files, none of the required ones');
  });

  it('states the audit the labels follow, with agreement and sample size', () => {
    const audit = {
      run_id: 'r0',
      reviewer: 'ann',
      created_at: '2026-02-01T00:00:00Z',
      items: 30,
      agreed: 24,
      agreement: 0.8,
      required: 0.9,
      collapsed: true,
    };
    const r = buildReport(run(), cell(0, 2, {}, 'hallucinated_api'), {
      tasks: { source: 'snapshot', tasks: { t1: meta(1) }, note: null },
      cutoffs: null,
      audit,
    });
    const md = renderMarkdown(r);
    expect(md).toContain(
      'Level-4 audit (run r0, ann, 2026-02-01): 24 of 30 sampled trials agreed with the rules (80.0%), below the 90.0% required: hallucinated_api and wrong_abstraction_layer are shown as implementation_error.',
    );
    expect(md).toContain('| implementation_error | 4 | 2 | 100% |');
    expect(renderHtml(r)).toMatch(/<p id="audit" class="note">Level-4 audit .*24 of 30 sampled/);
  });

  it('marks contaminated cells and lists models without a cutoff', () => {
    const cutoffs = parseCutoffs(
      { schema_version: 1, models: [{ model: 'm', cutoff: '2026-02' }] },
      'c.json',
    );
    const trials = [...cell(1, 1), ...cell(1, 1, { model: 'other' })];
    const md = renderMarkdown(
      buildReport(run(), trials, {
        tasks: { source: 'snapshot', tasks: { t1: meta(1) }, note: null },
        cutoffs,
      }),
    );
    expect(md).toMatch(/\| p\/m \| t1 \| hinted .*⚠ merged before cutoff/);
    expect(md).toContain('- p/m (cutoff 2026-02): 1 of 1 cell on tasks merged before the cutoff');
    expect(md).toContain('no knowledge cutoff listed for p/other');
  });

  it('control agents are named by the agent, not "none/none"', () => {
    const md = renderMarkdown(
      buildReport(run({ agent: 'oracle' }), cell(1, 1, { provider: 'none', model: 'none' }), {
        tasks: { source: 'unavailable', tasks: {}, note: 'task metadata unavailable: gone' },
        cutoffs: null,
      }),
    );
    expect(md).toContain('| (oracle) | hinted |');
    expect(md).toContain('> Note: task metadata unavailable: gone.');
  });
});

describe('task metadata for a report', () => {
  it('prefers the snapshot stored with the run', () => {
    const r = resolveTaskMeta({ task_meta: { a: meta(1) }, datasets: ['/nowhere'] });
    expect(r).toEqual({ source: 'snapshot', tasks: { a: meta(1) }, note: null });
  });

  it('falls back to the dataset on disk, and says so when it has gone', () => {
    const dir = join(tempDir(), 'ds');
    cpSync(join(EXAMPLES, 'tasks'), join(dir, 'tasks'), { recursive: true });
    const r = resolveTaskMeta({ datasets: [dir], runs: 2 });
    expect(r.source).toBe('dataset');
    expect(r.note).toMatch(/re-read from the dataset on disk/);
    expect(r.tasks['textkit-002']).toMatchObject({ tier: 3, languages: ['javascript'], runs: 2 });
    rmSync(dir, { recursive: true });
    const gone = resolveTaskMeta({ datasets: [dir] });
    expect(gone.source).toBe('unavailable');
    expect(gone.note).toContain(`no longer readable at ${dir}`);
  });
});

describe('html', () => {
  it('escapes names, has no script and forbids loading anything', () => {
    const trials = [
      ...cell(1, 2, { model: '<img src=x onerror=alert(1)>' }),
      ...cell(0, 2, { model: '<img src=x onerror=alert(1)>', mode: 'navigation' }),
    ];
    const html = renderHtml(
      buildReport(run(), trials, {
        tasks: { source: 'snapshot', tasks: { t1: meta(1) }, note: null },
        cutoffs: null,
      }),
    );
    expect(html).not.toContain('<img');
    expect(html).not.toMatch(/<script|<link|@import|url\(|src=["']http/i);
    expect(html).toContain("default-src 'none'");
    expect(html).toContain('&#60;img src=x');
    expect((html.match(/<svg/g) ?? []).length).toBe(3); // scores, navigation delta, taxonomy
  });
});

describe('integrity in the report', () => {
  it('warns about --sandbox none and lists flagged trials, in markdown and HTML', () => {
    const trials = [
      ...cell(1, 1),
      ...cell(0, 1, { attempt: 2, flags: ['escaped_workspace'] }, 'zero_signal'),
    ];
    const r = buildReport(run({ sandbox_used: 'none' }), trials, {
      tasks: { source: 'unavailable', tasks: {}, note: null },
      cutoffs: null,
    });
    expect(r.integrity.flagged).toHaveLength(1);
    expect(renderMarkdown(r)).toContain('**Warning: no sandbox.**');
    const html = renderHtml(r);
    expect(html).toContain('<strong>Warning: no sandbox.</strong>');
    expect(html).toMatch(/<table id="integrity-table">.*escaped_workspace/s);
  });

  it('names none-as-nobody, and a trial weaker than its run (a worker without bwrap)', () => {
    const report = (config: Record<string, unknown>, kind?: string) =>
      buildReport(
        run(config),
        // A partial record, as an older store may hold: only the sandbox's kind.
        cell(1, 1).map((t) => ({
          ...t,
          details: kind ? ({ sandbox: { kind } } as TrialDetails) : {},
        })),
        { tasks: { source: 'unavailable', tasks: {}, note: null }, cutoffs: null },
      );
    const nobody = report({ sandbox_used: 'none-as-nobody' });
    expect(renderMarkdown(nobody)).toContain('**Warning: no sandbox for the network.**');
    expect(renderHtml(nobody)).toContain('<code>none-as-nobody</code>');
    const mixed = report({ sandbox_used: 'bwrap' }, 'none');
    expect(mixed.integrity).toMatchObject({ sandbox: 'none', sandbox_trials: { none: 1 } });
    expect(renderMarkdown(mixed)).toContain('**Warning: no sandbox.**');
    expect(renderMarkdown(report({ sandbox_used: 'bwrap' }, 'bwrap'))).not.toContain('Warning');
  });
});

// Issue 18: reports list saturated tasks (they no longer separate models) and calibrating ones.
describe('lifecycle in reports', () => {
  it('lists tasks saturated in this run, recorded as saturated, and calibrating', () => {
    const trials = [
      // t1: three models, three runs each, 9 of 9 solved (saturated); t2: 6 of 9 (not).
      ...['m1', 'm2', 'm3'].flatMap((model) => cell(3, 3, { task_id: 't1', model })),
      ...['m1', 'm2', 'm3'].flatMap((model) => cell(2, 3, { task_id: 't2', model })),
      // navigation: only two models, so t1 is not judged there
      ...['m1', 'm2'].flatMap((model) => cell(3, 3, { task_id: 't1', model, mode: 'navigation' })),
      ...cell(0, 1, { task_id: 't3' }),
    ];
    const tasks = {
      t1: meta(1),
      t2: { ...meta(2), saturated: { pooled_rate: 0.93, reason: 'the only parser task' } },
      t3: { ...meta(3), state: 'calibrating' as const },
    };
    const r = buildReport(run({ agent_info: { nanocoder_version: '1.30.0' } }), trials, {
      tasks: { source: 'snapshot', tasks, note: null },
      cutoffs: null,
    });
    expect(r.lifecycle).toEqual({
      calibrating: ['t3'],
      saturated: {
        recorded: [{ task_id: 't2', pooled_rate: 0.93, reason: 'the only parser task' }],
        this_run: [
          { task_id: 't1', mode: 'hinted', configurations: 3, passed: 9, observations: 9, rate: 1 },
        ],
      },
    });
    const md = renderMarkdown(r);
    expect(md).toContain(
      '## Saturated tasks\n\nA pooled solve rate of 0.9 or more: these tasks no longer separate models (nanobench calibration).\n\n- t1 (hinted): 9/9 solved in this run across 3 configurations\n- t2: recorded saturated at 93%, kept active: the only parser task',
    );
    expect(md).toMatch(
      /## Calibrating tasks\n\n.*not part of a released dataset version\.\n\n- t3/,
    );
    const html = renderHtml(r);
    expect(html).toContain('<section id="saturated-tasks"><h2>Saturated tasks</h2>');
    expect(html).toContain('<li>t1 (hinted): 9/9 solved in this run across 3 configurations</li>');
  });
});
