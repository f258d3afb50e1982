// Issue #13: the demo's first run is quick (40 trials, a minute or two on two cores) and says what
// it leaves out; --full is the whole policy with every scripted model (204 trials).
import { describe, expect, it } from 'vitest';
import { DEMO_MODELS, demoChoice } from '../../src/cli/demo.js';
import { planTrials } from '../../src/run/plan.js';
import { EXAMPLES } from '../helpers/cli.js';
import { loadInline } from '../helpers/tasks.js';

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
    });
    expect(demoChoice({ full: true, runs: '3' }, DEMO_MODELS).runs).toBe('3');
    expect(demoChoice({}, ['competent', 'flaky']).models).toEqual(['competent']);
  });
});
