// Issue 18: the calibration states and the saturation rule, on runs stored in a real results
// database (through the Store, as runs write them). A task is calibrated by three materially
// different configurations with three valid observations each; only trials on its current
// content count; a pooled solve rate of at least 0.9 is saturation.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CALIBRATION_RULE,
  calibrate,
  calibrationReport,
  configurationOf,
  observationsOf,
  readStoredRuns,
} from '../../src/calibration/calibration.js';
import { calibrationText } from '../../src/calibration/render.js';
import { Store } from '../../src/store/store.js';
import { contentDigest, taskDigest } from '../../src/task/digest.js';
import { type LoadedTask, loadDataset } from '../../src/task/load.js';
import { EXAMPLES } from '../helpers/cli.js';
import { run as runRecord, type TrialFields, trial } from '../report/make-trials.js';

const examples = loadDataset(EXAMPLES);
const base = examples.find((t) => t.task.task_id === 'textkit-001')!;

/** textkit-001 in another lifecycle state (its content, hence its content digest, unchanged). */
function inState(status: LoadedTask['task']['status']): LoadedTask {
  const task = { ...base.task, status };
  return { ...base, task, digest: taskDigest(task) };
}
const calibrating = inState({ state: 'calibrating' });

const NANOCODER = { nanocoder_version: '1.30.0', nanocoder_path: '/opt/a/cli.js' };

/** A results database holding the given runs: [run config facts, trials]. */
function database(
  runs: {
    id: string;
    info?: Record<string, unknown>;
    meta?: boolean;
    trials: TrialFields[];
  }[],
  task: LoadedTask = calibrating,
): string {
  const db = join(mkdtempSync(join(tmpdir(), 'nb-cal-')), 'r.sqlite');
  const store = Store.open(db);
  for (const r of runs) {
    store.createRun(
      runRecord(
        {
          agent_info: r.info ?? NANOCODER,
          task_digests: { [task.task.task_id]: task.digest },
          ...(r.meta !== false && {
            task_meta: {
              [task.task.task_id]: { tier: 1, content_digest: contentDigest(task.task) },
            },
          }),
        },
        r.id,
      ),
    );
    for (const [i, t] of r.trials.entries())
      store.insertTrial(
        trial({ run_id: r.id, trial_key: `${r.id}-${i}`, task_id: 'textkit-001', ...t }),
      );
  }
  store.close();
  return db;
}

/** `passed` passes and `n - passed` failures of one model, hinted mode. */
const obs = (model: string, passed: number, n: number, over: TrialFields = {}) =>
  Array.from(
    { length: n },
    (_, i): TrialFields => ({
      provider: 'openai',
      model,
      label: i < passed ? 'pass' : 'incorrect_fix',
      score: i < passed ? 1 : 0,
      attempt: i + 1,
      ...over,
    }),
  );

const calibrationOf = (db: string, task = calibrating) =>
  calibrate(task, observationsOf(readStoredRuns([db]), [task], 'hinted'));

describe('configurations', () => {
  it('differ by model or by Nanocoder build, never by where the build is installed', () => {
    const a = configurationOf({ agent: 'nanocoder', agent_info: NANOCODER }, 'openai', 'm1');
    expect(a).toBe('nanocoder@1.30.0 openai/m1');
    expect(
      configurationOf(
        { agent: 'nanocoder', agent_info: { ...NANOCODER, nanocoder_path: '/elsewhere' } },
        'openai',
        'm1',
      ),
    ).toBe(a);
    expect(
      configurationOf(
        {
          agent: 'nanocoder',
          agent_info: { nanocoder_version: '1.31.0', nanocoder_commit: 'abcdef0123456789' },
        },
        'openai',
        'm1',
      ),
    ).toBe('nanocoder@1.31.0+abcdef012345 openai/m1');
    // Controls and command agents observe no model.
    expect(configurationOf({ agent: 'oracle', agent_info: {} }, 'none', 'none')).toBeUndefined();
  });
});

describe('calibration states', () => {
  it('three configurations with three valid observations each make a calibrating task ready', () => {
    const db = database([
      { id: 'r1', trials: [...obs('m1', 2, 3), ...obs('m2', 1, 3)] },
      // A second run of m1 and another Nanocoder build on m2: the build is a configuration too.
      { id: 'r2', info: { nanocoder_version: '1.31.0' }, trials: obs('m2', 3, 3) },
    ]);
    const c = calibrationOf(db);
    expect(c.configurations.map((x) => [x.configuration, x.passed, x.valid])).toEqual([
      ['nanocoder@1.30.0 openai/m1', 2, 3],
      ['nanocoder@1.30.0 openai/m2', 1, 3],
      ['nanocoder@1.31.0 openai/m2', 3, 3],
    ]);
    expect(c).toMatchObject({ state: 'calibrating', ready: true, saturated: false });
    expect(c.pooled).toMatchObject({ passed: 6, valid: 9 });
    expect(c.pooled.ci95.low).toBeCloseTo(0.3542, 3); // Wilson, 6/9
    expect(c.pooled.ci95.high).toBeCloseTo(0.8794, 3);
    expect(c.configurations[0].ci95.low).toBeCloseTo(0.2077, 3); // 2/3
    expect(c.next).toMatch(/^ready to activate: nanobench task activate textkit-001/);
  });

  it('is not ready with two configurations, or with one configuration short of observations', () => {
    const two = calibrationOf(
      database([{ id: 'r', trials: [...obs('m1', 3, 5), ...obs('m2', 0, 5)] }]),
    );
    expect(two).toMatchObject({
      ready: false,
      qualified: ['nanocoder@1.30.0 openai/m1', 'nanocoder@1.30.0 openai/m2'],
    });
    expect(two.next).toMatch(
      /keep calibrating: 1 more configuration\(s\) with 3 valid observations each/,
    );
    const short = calibrationOf(
      database([{ id: 'r', trials: [...obs('m1', 1, 3), ...obs('m2', 1, 3), ...obs('m3', 1, 2)] }]),
    );
    expect(short.ready).toBe(false);
    expect(short.qualified).toHaveLength(2);
  });

  it('only valid observations count: infra errors, other content and stale lists do not', () => {
    const other = { ...calibrating.task, problem_statement: 'an older wording' };
    const db = database([
      {
        id: 'r',
        trials: [
          ...obs('m1', 3, 3),
          ...obs('m2', 2, 2),
          {
            provider: 'openai',
            model: 'm2',
            status: 'error',
            label: null,
            score: null,
            attempt: 9,
          },
          ...obs('m3', 2, 2),
          { provider: 'openai', model: 'm3', attempt: 8, flags: ['target_tests_missing'] },
          // navigation-mode trials are not hinted observations
          ...obs('m3', 3, 3, { mode: 'navigation' }),
        ],
      },
    ]);
    const c = calibrationOf(db);
    expect(c.ready).toBe(false);
    expect(c.configurations.map((x) => [x.valid, x.invalid])).toEqual([
      [3, {}],
      [2, { error: 1 }],
      [2, { stale_lists: 1 }],
    ]);
    // The same runs judged for a task whose content changed since: nothing counts.
    const changed: LoadedTask = { ...calibrating, task: other, digest: taskDigest(other) };
    const c2 = calibrate(changed, observationsOf(readStoredRuns([db]), [changed], 'hinted'));
    expect(c2.pooled.valid).toBe(0);
    expect(c2.configurations[0].invalid).toEqual({ other_content: 3 });
  });

  it('activation or a dispute does not change the content: earlier observations still count', () => {
    const db = database([
      { id: 'r', trials: [...obs('m1', 1, 3), ...obs('m2', 1, 3), ...obs('m3', 1, 3)] },
    ]);
    const activated = inState({
      state: 'active',
      activated: {
        at: '2026-03-01T00:00:00Z',
        reason: 'reviewed',
        content_digest: contentDigest(base.task),
        configurations: ['a', 'b', 'c'],
        observations: 9,
      },
    });
    expect(activated.digest).not.toBe(calibrating.digest);
    const c = calibrationOf(db, activated);
    expect(c).toMatchObject({ state: 'active', ready: true, problems: [] });
    expect(c.pooled.valid).toBe(9);
  });

  it('runs from before content digests count when their full digest is the current one', () => {
    const db = database([{ id: 'old', meta: false, trials: obs('m1', 3, 3) }]);
    expect(calibrationOf(db).pooled.valid).toBe(3);
    expect(calibrationOf(db, inState({ state: 'active' })).configurations[0].invalid).toEqual({
      other_content: 3,
    });
  });

  it('an active task whose content changed since activation must return to calibrating', () => {
    const task = inState({
      state: 'active',
      activated: {
        at: '2026-03-01T00:00:00Z',
        reason: 'reviewed',
        content_digest: `sha256:${'0'.repeat(64)}`,
        configurations: ['a', 'b', 'c'],
        observations: 9,
      },
    });
    const c = calibrate(task, []);
    expect(c.problems).toEqual([
      'textkit-001 changed since it was activated (its content digest differs): it returns to calibrating: nanobench task recalibrate textkit-001',
    ]);
  });
});

describe('saturation', () => {
  const trials = [...obs('m1', 3, 3), ...obs('m2', 3, 3), ...obs('m3', 3, 4)]; // 9/10 = 0.9
  const active = inState({ state: 'active' });

  it('a pooled solve rate of 0.9 or more, once calibrated, is saturation', () => {
    expect(CALIBRATION_RULE.saturation).toBe(0.9);
    expect(calibrationOf(database([{ id: 'r', trials }]))).toMatchObject({
      saturated: true,
      pooled: { passed: 9, valid: 10, rate: 0.9 },
    });
    // 8/10 is not; and 3/3 of one model is no calibration at all.
    const below = [...obs('m1', 3, 3), ...obs('m2', 2, 3), ...obs('m3', 3, 4)];
    expect(calibrationOf(database([{ id: 'r', trials: below }])).saturated).toBe(false);
    expect(calibrationOf(database([{ id: 'r', trials: obs('m1', 3, 3) }])).saturated).toBe(false);
  });

  it('an active saturated task needs a recorded reason to stay active; reports list it', () => {
    const db = database([{ id: 'r', trials }], active);
    const c = calibrationOf(db, active);
    expect(c.problems).toEqual([
      expect.stringMatching(
        /^textkit-001 is saturated \(pooled solve rate 90% \(9\/10\) over 3 configurations\) and active without a recorded reason: keep it with nanobench task keep-saturated textkit-001 --reason/,
      ),
    ]);
    const kept = inState({
      state: 'active',
      saturated: {
        pooled_rate: 0.9,
        passed: 9,
        observations: 10,
        marked_at: '2026-03-01T00:00:00Z',
        reason: 'the only task on this API',
      },
    });
    const r = calibrationReport([kept], readStoredRuns([db]), {
      mode: 'hinted',
      dataset: 'examples',
      dbs: [db],
    });
    expect(r).toMatchObject({ saturated: ['textkit-001'], problems: [] });
    expect(r.tasks[0].next).toBe('active, saturated and kept: the only task on this API');
    const text = calibrationText(r, 'examples');
    expect(text).toContain(
      'textkit-001  active  ready (3 configurations with enough observations)  SATURATED',
    );
    expect(text).toMatch(/nanocoder@1\.30\.0 openai\/m3 +3\/4 +0\.75 +\[0\.30, 0\.95\]/);
    expect(text).toContain('Saturated (they no longer separate models): textkit-001 (kept)');
  });
});
