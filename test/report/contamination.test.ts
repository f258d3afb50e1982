// Contamination marks: a cell is marked when its task was merged before the model's knowledge
// cutoff. The cutoff list is a small validated JSON file.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  cutoffEnd,
  cutoffFor,
  DEFAULT_CUTOFFS_FILE,
  loadCutoffs,
  mergedBeforeCutoff,
  parseCutoffs,
} from '../../src/config/cutoffs.js';
import { providerMatrix } from '../../src/report/matrix.js';
import type { TaskMeta } from '../../src/report/task-meta.js';
import { tempDir } from '../helpers/cli.js';
import { cell } from './make-trials.js';

const meta = (merged_at: string, tier = 1): TaskMeta => ({
  tier,
  languages: ['python'],
  domain: 'd',
  reasoning_category: 'r',
  token_estimate: 100,
  merged_at,
  runs: 1,
});

describe('cutoff dates', () => {
  it('a month cutoff runs to the end of that month, a day cutoff to the end of the day (UTC)', () => {
    expect(new Date(cutoffEnd('2025-03')).toISOString()).toBe('2025-04-01T00:00:00.000Z');
    expect(new Date(cutoffEnd('2025-12')).toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(new Date(cutoffEnd('2025-02-28')).toISOString()).toBe('2025-03-01T00:00:00.000Z');
  });
  it('merged during the cutoff month counts as possibly seen; the day after does not', () => {
    expect(mergedBeforeCutoff('2025-03-31T23:59:59Z', '2025-03')).toBe(true);
    expect(mergedBeforeCutoff('2025-04-01T00:00:00Z', '2025-03')).toBe(false);
    expect(mergedBeforeCutoff('2025-03-15T10:00:00+02:00', '2025-03-15')).toBe(true);
  });
});

describe('the cutoff file', () => {
  const file = {
    schema_version: 1,
    models: [
      { model: 'm', cutoff: '2025-01' },
      { provider: 'p', model: 'm', cutoff: '2026-02-01' },
    ],
  };
  it('an exact provider match wins over a provider-less entry', () => {
    const c = parseCutoffs(file, 'f.json');
    expect(cutoffFor(c, 'p', 'm')?.cutoff).toBe('2026-02-01');
    expect(cutoffFor(c, 'other', 'm')?.cutoff).toBe('2025-01');
    expect(cutoffFor(c, 'p', 'unknown')).toBeUndefined();
  });
  it('rejects bad dates and unknown fields, naming the file and the field', () => {
    expect(() =>
      parseCutoffs({ schema_version: 1, models: [{ model: 'm', cutoff: 'March 2025' }] }, 'f.json'),
    ).toThrow(/f\.json: field "models\.0\.cutoff": a date YYYY-MM or YYYY-MM-DD/);
    expect(() =>
      parseCutoffs(
        { schema_version: 1, models: [{ model: 'm', cutoff: '2025-01', cutof: 1 }] },
        'f.json',
      ),
    ).toThrow(/unknown field\(s\) "cutof"/);
  });
  it('loads a file, and the default list in examples/ is valid', () => {
    const path = join(tempDir(), 'c.json');
    writeFileSync(path, JSON.stringify(file));
    expect(loadCutoffs(path).entries).toHaveLength(2);
    expect(loadCutoffs(DEFAULT_CUTOFFS_FILE).entries.length).toBeGreaterThan(0);
    expect(() => loadCutoffs(join(tempDir(), 'missing.json'))).toThrow(
      /no such knowledge-cutoff file/,
    );
  });
});

describe('matrix cells', () => {
  const cutoffs = parseCutoffs(
    {
      schema_version: 1,
      models: [
        { provider: 'p', model: 'old', cutoff: '2025-06' },
        { provider: 'p', model: 'new', cutoff: '2026-02' },
      ],
    },
    'f.json',
  );
  const tasks = { early: meta('2026-01-20T14:12:00Z'), late: meta('2026-03-03T09:20:00Z') };
  const trials = ['old', 'new', 'unlisted'].flatMap((model) =>
    ['early', 'late'].flatMap((task_id) => cell(1, 1, { model, task_id })),
  );
  const marks = () =>
    Object.fromEntries(
      providerMatrix(trials, { tasks, cutoffs }).map((c) => [
        `${c.model} ${c.task_id}`,
        c.contamination,
      ]),
    );

  it('marks the cells whose task was merged before the model cutoff', () =>
    expect(marks()).toEqual({
      'new early': 'pre_cutoff',
      'new late': 'post_cutoff',
      'old early': 'post_cutoff',
      'old late': 'post_cutoff',
      'unlisted early': 'unknown',
      'unlisted late': 'unknown',
    }));

  it('without task metadata or cutoffs nothing can be marked', () => {
    expect(providerMatrix(trials, { cutoffs }).every((c) => c.contamination === 'unknown')).toBe(
      true,
    );
    expect(providerMatrix(trials, { tasks }).every((c) => c.contamination === 'unknown')).toBe(
      true,
    );
  });
});
