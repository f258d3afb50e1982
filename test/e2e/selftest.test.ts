// Issue 28: behaviours derived from a task, played by the scripted model server to the REAL
// Nanocoder through the real proxy, through the CLI: `nanobench selftest` and `run --model
// derived:*`. Short on purpose (CI): one Python task, two behaviours, both modes.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, nanobench, runJson, tempDir } from '../helpers/cli.js';

const db = join(tempDir(), 'r.sqlite');
const MIRROR = join(EXAMPLES, 'mirror');

/** One hinted run per model of an example task, with derived (scripted) models. */
const derivedRun = (agent: string, models: string, task: string) =>
  runJson(
    ['run', 'examples', '--agent', agent, '--provider', 'scripted', '--model', models].concat([
      '--task',
      task,
      '--mode',
      'hinted',
      '--runs',
      '1',
      '--mirror',
      MIRROR,
      '--db',
      db,
    ]),
  );

describe('nanobench selftest', () => {
  it('golden and interface on invoicing-001: every case as the rules expect, in both modes', () => {
    const r = nanobench([
      'selftest',
      'examples',
      '--mirror',
      MIRROR,
      '--task',
      'invoicing-001',
      '--behaviour',
      'golden,interface',
      '--concurrency',
      '2',
      '--db',
      db,
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.nanocoder_version).toMatch(/^1\.30\./);
    const got = out.cases.map(
      (c: Record<string, unknown>) =>
        `${c.behaviour}/${c.mode}: ${c.expected} -> ${c.got} ${c.got_score} ${c.match}`,
    );
    expect(got).toEqual([
      'golden/hinted: pass -> pass 1 true',
      'golden/navigation: pass -> pass 1 true',
      'interface/hinted: wrong_abstraction_layer -> wrong_abstraction_layer 0 true',
      'interface/navigation: wrong_abstraction_layer -> wrong_abstraction_layer 0.1 true',
    ]);
    // Nothing derived is written into the dataset (no evidence without --record-evidence).
    expect(existsSync(join(EXAMPLES, 'selftest'))).toBe(false);
  });

  it('run --model derived:golden solves a four-file task through Nanocoder', () => {
    const out = derivedRun('nanocoder', 'derived:golden', 'textkit-002');
    expect(out.trials.map((t) => [t.model, t.label, t.score])).toEqual([
      ['derived:golden', 'pass', 1],
    ]);
    expect(out.trials[0].files_changed.length).toBeGreaterThanOrEqual(4);
  });

  it('the bare agent plays derived behaviours too, in its own format', () => {
    const out = derivedRun(
      'bare',
      'derived:golden,derived:hallucinated,derived:nothing',
      'invoicing-001',
    );
    const got = out.trials.map((t) => [t.agent, t.model, t.label]).sort();
    expect(got).toEqual([
      ['bare', 'derived:golden', 'pass'],
      ['bare', 'derived:hallucinated', 'hallucinated_api'],
      ['bare', 'derived:nothing', 'unusable_edit'],
    ]);
  });

  it('an unknown behaviour is one line naming the known ones, exit 2', () => {
    const run = nanobench(
      ['run', 'examples', '--agent', 'nanocoder', '--provider', 'scripted'].concat([
        '--model',
        'derived:lazy',
        '--task',
        'textkit-001',
        '--db',
        db,
      ]),
    );
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(/^nanobench: .*derived:lazy.*derived:golden/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    const st = nanobench(['selftest', 'examples', '--behaviour', 'lazy', '--db', db]);
    expect(st.code).toBe(2);
    expect(st.stderr).toContain('no behaviour lazy');
  });
});
