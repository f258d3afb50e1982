// Issue 18: a task's lifecycle through the CLI on real runs: the real Nanocoder driven by the
// scripted models. textkit-001 enters as calibrating; ordinary runs leave it out; runs with
// --calibrating observe it; it cannot be activated on two configurations, can on three; the
// manifest moves it from "calibrating" to the released tasks.
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CalibrationReport } from '../../src/calibration/calibration.js';
import { EXAMPLES, nanobench, tempDir } from '../helpers/cli.js';

const root = tempDir('nb-calibration-');
const ds = join(root, 'ds');
const db = join(root, 'results.sqlite');
const file = join(ds, 'tasks', 'textkit-001.json');
const readJson = (f: string) => JSON.parse(readFileSync(f, 'utf8'));

cpSync(join(EXAMPLES, 'tasks'), join(ds, 'tasks'), { recursive: true });
cpSync(join(EXAMPLES, 'dataset.json'), join(ds, 'dataset.json'));
writeFileSync(
  file,
  `${JSON.stringify({ ...readJson(file), status: { state: 'calibrating' } }, null, 2)}\n`,
);

const run = (models: string, extra: string[] = []) =>
  nanobench([
    'run',
    ds,
    '--agent',
    'nanocoder',
    '--provider',
    'scripted',
    '--model',
    models,
    '--task',
    'textkit-001',
    '--runs',
    '3',
    '--concurrency',
    '2',
    '--mirror',
    join(EXAMPLES, 'mirror'),
    '--db',
    db,
    ...extra,
  ]);

const calibration = (): CalibrationReport => {
  const r = nanobench(['calibration', ds, '--db', db, '--task', 'textkit-001', '--json']);
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
};
const activate = () =>
  nanobench([
    'task',
    'activate',
    'textkit-001',
    '--dataset',
    ds,
    '--db',
    db,
    '--reason',
    'alternatives and disputes reviewed',
  ]);

describe('calibrating a task on real runs', () => {
  it('a calibrating task is left out of runs unless asked for', () => {
    const r = run('competent');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /--task: textkit-001 is still calibrating \(not part of a release\); add --calibrating to run it/,
    );
    const m = nanobench(['dataset', 'manifest', ds, '--json', '--check']);
    const manifest = JSON.parse(m.stdout);
    expect(manifest.calibrating.map((t: { task_id: string }) => t.task_id)).toEqual([
      'textkit-001',
    ]);
    expect(manifest.tasks.map((t: { task_id: string }) => t.task_id)).not.toContain('textkit-001');
  });

  it('two configurations are not enough to activate it', () => {
    const r = run('competent,flaky', ['--calibrating']);
    expect(r.code, r.stderr).toBe(0);
    const c = calibration().tasks[0];
    expect(c).toMatchObject({ state: 'calibrating', ready: false });
    expect(
      c.configurations.map((x) => [x.configuration.replace(/@[^ ]+/, ''), x.passed, x.valid]),
    ).toEqual([
      ['nanocoder scripted/competent', 3, 3],
      ['nanocoder scripted/flaky', 3, 3],
    ]);
    const a = activate();
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(
      /textkit-001 is not calibrated: 2 of 3 configurations have 3 valid hinted observations/,
    );
    expect(readJson(file).status).toEqual({ state: 'calibrating' });
  });

  it('a third configuration calibrates it: rates with Wilson intervals, then activation', () => {
    expect(run('hallucinator', ['--calibrating']).code).toBe(0);
    const c = calibration().tasks[0];
    expect(c).toMatchObject({ ready: true, saturated: false, pooled: { passed: 6, valid: 9 } });
    const halluc = c.configurations.find((x) => x.configuration.endsWith('scripted/hallucinator'))!;
    expect(halluc).toMatchObject({ passed: 0, valid: 3, rate: 0, ci95: { low: 0 } });
    expect(halluc.ci95.high).toBeCloseTo(0.5615, 3);
    const text = nanobench(['calibration', ds, '--db', db]).stdout;
    expect(text).toMatch(
      /textkit-001 {2}calibrating {2}ready \(3 configurations with enough observations\)/,
    );
    expect(text).toMatch(/pooled +6\/9 +0\.67 +\[0\.35, 0\.88\]/);
    // Not saturated, so nothing to keep.
    const keep = nanobench([
      'task',
      'keep-saturated',
      'textkit-001',
      '--dataset',
      ds,
      '--db',
      db,
      '--reason',
      'x',
    ]);
    expect(keep.code).toBe(2);
    expect(keep.stderr).toMatch(/not saturated in these runs: pooled solve rate 67% \(6\/9\)/);

    const a = activate();
    expect(a.code, a.stderr).toBe(0);
    const status = readJson(file).status;
    expect(status).toMatchObject({
      state: 'active',
      activated: { reason: 'alternatives and disputes reviewed', observations: 9 },
    });
    expect(status.activated.configurations).toHaveLength(3);
    // The activation changed the file, not the content: the observations still count.
    expect(calibration().tasks[0]).toMatchObject({ state: 'active', ready: true, problems: [] });
    expect(nanobench(['calibration', ds, '--db', db, '--check']).code).toBe(0);
    nanobench(['dataset', 'manifest', ds, '--version', '0.3.0']);
    const manifest = readJson(join(ds, 'dataset.json'));
    expect(manifest.calibrating).toEqual([]);
    expect(manifest.tasks.map((t: { task_id: string }) => t.task_id)).toContain('textkit-001');
    expect(activate().stderr).toMatch(
      /textkit-001 is active; only a calibrating task is activated/,
    );
  });
});
