// `nanobench runs` and the refusal of an unknown run id: the rows a store lists and the nearest ids.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listRuns, nearestRunIds, unknownRunMessage } from '../../src/report/run-list.js';
import { Store } from '../../src/store/store.js';
import { tempDir } from '../helpers/cli.js';
import { cell, run, trial } from './make-trials.js';

const IDS = ['20260101T090000-aaaaaa', '20260102T090000-bbbbbb', '20260103T120000-cccccc'];

describe('nearestRunIds', () => {
  it('puts an id the wanted text is part of first, then the closest by edit distance', () => {
    expect(nearestRunIds(IDS, 'bbbbbb')[0]).toBe('20260102T090000-bbbbbb');
    // One character off the third id (a typo): nearest first.
    expect(nearestRunIds(IDS, '20260103T120000-ccccc')[0]).toBe('20260103T120000-cccccc');
    expect(nearestRunIds(IDS, 'x', 2)).toHaveLength(2);
  });

  it('names the nearest ids and how to list them all; an empty store says so', () => {
    expect(unknownRunMessage('r.sqlite', '20260103T12000-cccccc', IDS)).toBe(
      'r.sqlite: no run "20260103T12000-cccccc"; nearest: 20260103T120000-cccccc, 20260102T090000-bbbbbb, 20260101T090000-aaaaaa (3 stored; nanobench runs --db r.sqlite lists them)',
    );
    expect(unknownRunMessage('r.sqlite', 'x', [])).toBe(
      'r.sqlite: no run "x" (no runs stored yet)',
    );
  });
});

describe('listRuns', () => {
  it('lists every run newest first with its models, dataset version, sandbox and pass rate', () => {
    const store = Store.open(join(tempDir(), 'r.sqlite'));
    const config = {
      agent: 'nanocoder',
      datasets: ['/d/examples'],
      dataset_versions: [
        { path: '/d/examples', name: 'ex', version: '1.0.0', digest: null, archived: false },
      ],
      models: [
        { provider: 'scripted', model: 'competent' },
        { provider: 'local', model: 'qwen' },
      ],
      modes: ['hinted'],
      sandbox_used: 'bwrap',
      agent_info: { nanocoder_version: '1.30.0' },
    };
    store.createRun({ ...run(config, 'old'), created_at: '2026-01-01T00:00:00Z', plan_size: 4 });
    store.createRun({
      ...run({ agent: 'oracle', datasets: ['/d/x'] }, 'new'),
      created_at: '2026-01-02T00:00:00Z',
    });
    for (const t of [
      ...cell(3, 4, { run_id: 'old' }),
      trial({ run_id: 'old', status: 'error', attempt: 9 }),
    ])
      store.insertTrial(t);
    const rows = listRuns(store);
    store.close();
    expect(rows.map((r) => r.id)).toEqual(['new', 'old']);
    expect(rows[1]).toMatchObject({
      agent: 'nanocoder',
      nanocoder_version: '1.30.0',
      providers: ['scripted', 'local'],
      models: ['scripted/competent', 'local/qwen'],
      datasets: ['ex@1.0.0'],
      sandbox: 'bwrap',
      trials: 5,
      scored: 4,
      passed: 3,
      errors: 1,
      pass_rate: 0.75,
    });
    // A dataset without a recorded manifest is named by its path; nothing stored: no rate.
    expect(rows[0]).toMatchObject({
      datasets: ['/d/x'],
      sandbox: null,
      trials: 0,
      pass_rate: null,
    });
  });
});
