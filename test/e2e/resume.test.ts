// Issue #2: killing a run mid-way loses no finished trial; --resume finishes the rest without
// running or storing any trial twice.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.js';
import { nanobenchAsync, runJson, tempDir } from '../helpers/cli.js';
import { storedTrialRows } from '../helpers/db.js';

type Row = { trial_key: string; started_at: string; score: number };
const storedTrials = (db: string) => storedTrialRows<Row>(db, ['trial_key', 'started_at', 'score']);

describe('kill and resume', () => {
  it('keeps finished trials and completes the plan exactly once', async () => {
    const dir = tempDir();
    const db = join(dir, 'r.sqlite');
    // A slow agent: each trial takes about a second, ten trials in all.
    const child = nanobenchAsync([
      'run',
      'examples',
      '--agent',
      'command:sleep 0.7',
      '--mode',
      'both',
      '--runs',
      '1',
      '--db',
      db,
    ]);
    const deadline = Date.now() + 60_000;
    while (storedTrials(db).length < 3 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100));
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const before = storedTrials(db);
    expect(before.length).toBeGreaterThanOrEqual(3);
    expect(before.length).toBeLessThan(10);

    const out = runJson(['run', '--resume', '--db', db]);
    expect(out.trials).toHaveLength(10);
    const after = storedTrials(db);
    expect(after).toHaveLength(10);
    expect(new Set(after.map((t) => t.trial_key)).size).toBe(10);
    // The trials finished before the kill were not run again.
    for (const t of before) expect(after.find((a) => a.trial_key === t.trial_key)).toEqual(t);
    expect(out.trials.every((t) => t.status === 'scored')).toBe(true);
  });

  it('says clearly when there is nothing to resume', () => {
    const db = join(tempDir(), 'r.sqlite');
    expect(() => runJson(['run', '--resume', '--db', db])).toThrow(/no such results database/);
    Store.open(db).close(); // a results database without an unfinished run
    expect(() => runJson(['run', '--resume', '--db', db])).toThrow(/no unfinished run to resume/);
  });
});
