// Issue 16: reports show where a run's time went (the trial phases timed in details.phase_ms)
// and how its workspaces were made (details.provision), read through the Store as reports do.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderHtml } from '../../src/report/html.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { buildReport } from '../../src/report/model.js';
import { Store } from '../../src/store/store.js';
import { tempDir } from '../helpers/cli.js';
import { run, trial } from './make-trials.js';

const inputs = { tasks: { source: 'unavailable' as const, tasks: {}, note: 'x' }, cutoffs: null };

function stored(details: Record<string, unknown>[]) {
  const store = Store.open(join(tempDir('nb-phases-'), 'r.sqlite'));
  try {
    store.createRun(run());
    for (const [i, d] of details.entries())
      store.insertTrial(trial({ attempt: i + 1, details: d }));
    return store.trialOutcomes('r');
  } finally {
    store.close();
  }
}

describe('where the time went', () => {
  it('mean and median per phase in the order trials run them, and the provisioning modes', () => {
    const rows = stored([
      {
        phase_ms: { provision: 10, agent: 5, verify: 900, teardown: 20 },
        provision: { mode: 'overlay' },
      },
      {
        phase_ms: { provision: 30, agent: 15, verify: 1100, teardown: 40 },
        provision: { mode: 'overlay' },
      },
      {
        phase_ms: { provision: 2000, agent: 10, verify: 1000, teardown: 900 },
        provision: { mode: 'copy' },
      },
      {}, // stored before phases were timed: left out
    ]);
    const r = buildReport(run(), rows, inputs);
    expect(r.phases).toMatchObject({ trials: 3, provision: { overlay: 2, copy: 1 } });
    expect(r.phases!.phases.map((p) => [p.phase, p.mean_ms, p.median_ms])).toEqual([
      ['provision', 680, 30],
      ['agent', 10, 10],
      ['verify', 1000, 1000],
      ['teardown', 320, 40],
    ]);
    expect(r.phases!.mean_total_ms).toBe(2010);
    const md = renderMarkdown(r);
    expect(md).toContain('## Where the time went');
    expect(md).toMatch(/Mean of 3 timed trials: 2\.0 s; workspaces: overlay ×2, copy ×1/);
    expect(md).toContain('| 680 ms (34%) | 10 ms (0%) | 1000 ms (50%) | 320 ms (16%) |');
    expect(renderHtml(r)).toMatch(/<section id="phases"><h2>Where the time went<\/h2>/);
  });

  it('is left out for runs whose trials were never timed', () => {
    const r = buildReport(run(), stored([{}]), inputs);
    expect(r.phases).toBeNull();
    expect(renderMarkdown(r)).not.toContain('Where the time went');
  });
});
