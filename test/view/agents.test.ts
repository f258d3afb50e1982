// The viewer's run page of a run of several agents (`--agent nanocoder,bare`, issue 29): the
// models table, the matrix and the trial list name each row by its agent, as the reports do, so
// the two agents on the same model do not read as one model listed twice.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.js';
import { viewApp } from '../../src/view/server.js';
import { tempDir } from '../helpers/cli.js';
import { run, trial } from '../report/make-trials.js';

const dir = tempDir('nb-view-agents-');
let reader: Store;
let app: ReturnType<typeof viewApp>['app'];

beforeAll(() => {
  const db = join(dir, 'results.sqlite');
  const w = Store.open(db);
  w.createRun({ ...run({ agent: 'nanocoder,bare', runs: 1 }, 'two'), plan_size: 2 });
  w.insertTrial(trial({ run_id: 'two', trial_key: 'a', agent: 'nanocoder' }));
  w.insertTrial(
    trial({ run_id: 'two', trial_key: 'b', agent: 'bare', label: 'unusable_edit', score: 0 }),
  );
  w.close();
  reader = Store.open(db, { readonly: true });
  app = viewApp(reader, { allowedHosts: ['localhost'] }).app;
});
afterAll(() => reader?.close());

describe('the run page of a run of two agents', () => {
  it('names every row by its agent and model', async () => {
    const html = await (await app.request('http://localhost/runs/two')).text();
    const models = html.match(/<table id="models-table">([\s\S]*?)<\/table>/)![1];
    expect(models).toContain('nanocoder · p/m');
    expect(models).toContain('bare · p/m');
    // matrix cells and the trial list as well: one "agent · model" per trial here
    expect(html.split('bare · p/m').length - 1).toBeGreaterThanOrEqual(3);
    expect(html.split('nanocoder · p/m').length - 1).toBeGreaterThanOrEqual(3);
  });

  it('filters by agent: the trials, the matrix and the row links select one agent', async () => {
    const all = await (await app.request('http://localhost/runs/two')).text();
    expect(all).toMatch(/<select name="agent"/);
    // A model row links to its own agent's trials.
    expect(all).toContain('href="/runs/two?agent=bare&amp;model=p%2Fm&amp;mode=hinted"');
    const bare = await (await app.request('http://localhost/runs/two?agent=bare')).text();
    const trials = bare.match(/<table id="trials-table">([\s\S]*?)<\/table>/)![1];
    expect(trials).toContain('unusable_edit');
    expect(trials).not.toContain('nanocoder · p/m');
  });
});
