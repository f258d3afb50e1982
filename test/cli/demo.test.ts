// Issue #13: the demo's first run is quick (40 trials, a minute or two on two cores) and says what
// it leaves out; --full is the whole policy with every scripted model (204 trials).
import { describe, expect, it } from 'vitest';
import { DEMO_MODELS, demoChoice, demoFaults, realSandboxLine } from '../../src/cli/demo.js';
import { planTrials } from '../../src/run/plan.js';
import { EXAMPLES } from '../helpers/cli.js';
import { loadInline } from '../helpers/tasks.js';
import { trial } from '../report/make-trials.js';

const tasks = loadInline(EXAMPLES);
const trials = (c: { models: string[]; runs?: string }) =>
  planTrials(
    tasks,
    'nanocoder',
    c.models.map((model) => ({ provider: 'scripted', model })),
    ['hinted', 'navigation'],
    c.runs === undefined ? undefined : Number(c.runs),
  ).length;

describe('demo choice', () => {
  it('quick by default: one run per task, one model of each behaviour, and says how to get the rest', () => {
    const quick = demoChoice({}, DEMO_MODELS);
    expect(quick.models).toEqual(['competent', 'hallucinator', 'wanderer', 'context-hog']);
    expect(quick.runs).toBe('1');
    expect(quick.says).toMatch(/quick demo: 1 run per task, 4 of the 6 scripted models/);
    expect(quick.says).toContain('npm run demo -- --full');
    expect(trials(quick)).toBe(40);
  });

  it('--full: the tier policy and all six models', () => {
    const full = demoChoice({ full: true }, DEMO_MODELS);
    expect(full.models).toEqual(DEMO_MODELS);
    expect(full.runs).toBeUndefined();
    expect(trials(full)).toBe(204);
  });

  it('--model and --runs win; models without a script are left out', () => {
    expect(demoChoice({ model: ['flaky'], runs: '2' }, DEMO_MODELS)).toMatchObject({
      models: ['flaky'],
      runs: '2',
      says: 'demo of flaky: 2 run(s) per task',
    });
    expect(demoChoice({ full: true, runs: '3' }, DEMO_MODELS).runs).toBe('3');
    expect(demoChoice({}, ['competent', 'flaky']).models).toEqual(['competent']);
  });
});

// Issue #22: the demo's models are scripted, so any trial that is not scored means the machine
// lacks something (a suite that could not start): the demo fails, so CI sees it.
describe('demo outcome', () => {
  const broken = trial({
    status: 'error',
    error: 'verify: suite py could not start (exit 127: "python3 -m unittest -v" was not found)',
  });
  it('fails when any trial is an infrastructure error, not only when all are', () => {
    expect(demoFaults([trial(), trial()])).toBeUndefined();
    expect(demoFaults([trial(), broken, trial()])).toBe(
      '1 of 3 trials were infrastructure errors, where every trial of the demo should be scored (its models are scripted); e.g. verify: suite py could not start (exit 127: "python3 -m unittest -v" was not found)',
    );
    expect(demoFaults([broken])).toMatch(/^every trial of the run was an infrastructure error/);
  });

  it('names a real sandbox in one line; the fallbacks have their own warning', () => {
    expect(realSandboxLine('bwrap', 'auto')).toMatch(/^sandbox bwrap \(bubblewrap works here\): /);
    expect(realSandboxLine('podman', 'podman')).toMatch(/^sandbox podman \(--sandbox podman\): /);
    expect(realSandboxLine('none-as-nobody', 'auto')).toBeUndefined();
    expect(realSandboxLine('none', 'none')).toBeUndefined();
  });
});
