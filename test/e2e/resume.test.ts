// Issue #2: killing a run mid-way loses no finished trial; --resume finishes the rest without
// running or storing any trial twice.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.js';
import { AGENTS, CLI, EXAMPLES, nanobench, runJson, tempDir } from '../helpers/cli.js';
import { storedTrialRows } from '../helpers/db.js';
import { asUnprivileged, start, unprivilegedDir } from '../helpers/processes.js';

type Row = { trial_key: string; started_at: string; score: number };
const storedTrials = (db: string) => storedTrialRows<Row>(db, ['trial_key', 'started_at', 'score']);

describe('kill and resume', () => {
  it('keeps finished trials and completes the plan exactly once', async () => {
    // The agent coordinates through a directory outside its workspace, so it needs plain
    // --sandbox none: as root that would be none-as-nobody (which hides the directory), so the
    // run itself is started as an unprivileged user.
    const dir = unprivilegedDir('nb-resume-');
    const db = join(dir, 'r.sqlite');
    const env = { ...process.env, HOME: dir };
    // Ten trials: the first three finish, the next ones wait on the hold file, so the kill below
    // lands mid-run with exactly three stored, however slow the machine.
    const hold = join(dir, 'hold');
    writeFileSync(hold, '');
    const child = start(
      [
        ...asUnprivileged(),
        process.execPath,
        CLI,
        'run',
        EXAMPLES,
        '--agent',
        `command:${join(AGENTS, 'hold-after.sh')} ${dir} 3`,
        '--sandbox',
        'none',
        '--mode',
        'both',
        '--runs',
        '1',
        '--concurrency',
        '2',
        '--db',
        db,
      ],
      { env },
    );
    const exited = new Promise((r) => child.once('exit', r));
    // Three stored and both slots held (tickets 4 and 5 taken). The test timeout bounds the wait.
    // Read only once the run (as nobody) has its WAL files: a reader as root that came first
    // would create the shared-memory file as root, and the run could no longer write.
    const ready = () => existsSync(`${db}-shm`) && storedTrials(db).length >= 3;
    while (!ready() || !existsSync(join(dir, 'ticket-5'))) {
      if (child.exitCode !== null)
        throw new Error(`the run ended early (${child.exitCode}): ${child.output()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    child.kill('SIGKILL');
    await exited;
    rmSync(hold); // the held agents, orphaned by the kill, finish now; resumed trials do not wait
    const before = storedTrials(db);
    expect(before).toHaveLength(3);

    const resumed = nanobench(['run', '--resume', '--db', db, '--json'], {
      as: asUnprivileged(),
      env,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    const out = JSON.parse(resumed.stdout) as { trials: { status: string }[] };
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
