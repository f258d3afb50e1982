// Issue 5: dataset manifest digests and cutoffs.
import { describe, expect, it } from 'vitest';
import { loadDataset, parseTask } from '../../src/task/load.js';
import { canonicalJson, datasetDigest, parseCutoff, taskDigest } from '../../src/task/manifest.js';
import { findPlaceholders } from '../../src/task/placeholders.js';

describe('canonical JSON and digests', () => {
  it('sorts keys at every depth; the same content gives the same text', () => {
    expect(canonicalJson({ b: [2, { y: 1, x: 0 }], a: 'é' })).toBe(
      '{"a":"é","b":[2,{"x":0,"y":1}]}',
    );
    expect(canonicalJson({ a: 1, u: undefined })).toBe('{"a":1}');
  });

  it('a task digest ignores key order and formatting but not content', () => {
    const [t] = loadDataset('examples').map((l) => l.task);
    const reordered = parseTask(
      JSON.parse(JSON.stringify(Object.fromEntries(Object.entries(t).reverse()))),
      'x',
    );
    expect(taskDigest(reordered)).toBe(taskDigest(t));
    expect(taskDigest({ ...t, problem_statement: `${t.problem_statement} ` })).not.toBe(
      taskDigest(t),
    );
  });

  it('the dataset digest depends on which tasks are in it', () => {
    const a = { task_id: 'a', digest: 'sha256:1' };
    const b = { task_id: 'b', digest: 'sha256:2' };
    expect(datasetDigest([a, b])).not.toBe(datasetDigest([a]));
  });
});

describe('parseCutoff', () => {
  it('takes a date or a date-time, in UTC', () => {
    expect(parseCutoff('2025-12-01')).toBe('2025-12-01T00:00:00Z');
    expect(parseCutoff('2025-12-01T02:00:00+02:00')).toBe('2025-12-01T00:00:00Z');
    expect(() => parseCutoff('December')).toThrow(/--cutoff must be a date/);
  });
});

describe('placeholders', () => {
  it('are found at any depth and named by field', () => {
    expect(
      findPlaceholders({ a: 'TODO(curator): x', b: [{ c: 'ok' }, { d: 'TODO(curator): y' }] }),
    ).toEqual([
      { path: 'a', text: 'TODO(curator): x' },
      { path: 'b.1.d', text: 'TODO(curator): y' },
    ]);
  });
  it('make the loader reject the task, naming the field to fill', () => {
    const [t] = loadDataset('examples').map((l) => l.task);
    const draft = {
      ...t,
      complexity_tier: 'TODO(curator): a number 1-4',
      domain: 'TODO(curator): domain',
    };
    expect(() => parseTask(draft, 'd.json')).toThrow(
      /d\.json: field "domain": placeholder not filled in[\s\S]*field "complexity_tier": placeholder not filled in/,
    );
    // the placeholder is reported once, not again as "expected number"
    expect(() => parseTask(draft, 'd.json')).not.toThrow(/expected number/);
  });
});
