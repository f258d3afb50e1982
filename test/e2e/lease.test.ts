// Issue 12: a run is held by one process at a time. Two processes resuming the same run used the
// same workspaces, killed each other's agents and dropped results; now the second is refused,
// naming the holder, and a holder that died (kill -9) is taken over by the next resume. Resuming
// with task files that changed since the run started, or with options that would change the
// run, is refused too.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { EXAMPLES, nanobench, nanobenchAsync, tempDir } from '../helpers/cli.js';
import { storedTrialRows } from '../helpers/db.js';

function runIdOf(db: string): string | undefined {
  try {
    const d = new Database(db, { readonly: true, fileMustExist: true });
    try {
      return (d.prepare('SELECT id FROM runs').get() as { id: string } | undefined)?.id;
    } finally {
      d.close();
    }
  } catch {
    return undefined;
  }
}

async function until<T>(what: () => T | undefined, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = what();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('one process per run', () => {
  it('refuses a second process, then lets a resume take over from a killed holder', async () => {
    const dir = tempDir('nb-lease-');
    const db = join(dir, 'r.sqlite');
    const first = nanobenchAsync([
      'run',
      'examples',
      '--agent',
      'command:sleep 1',
      '--runs',
      '1',
      '--db',
      db,
      '--sandbox',
      'none',
    ]);
    const runId = await until(() => runIdOf(db));
    await until(() => storedTrialRows(db, ['trial_key']).length > 0 || undefined);

    const second = nanobench(['run', '--resume', runId, '--db', db]);
    expect(second.code).toBe(2);
    expect(second.stderr).toMatch(
      new RegExp(
        `run ${runId} is being run by process ${first.pid} on .*; wait for it to finish, or, if that process is gone, resume with --take-over`,
      ),
    );

    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));
    const stored = storedTrialRows<{ trial_key: string }>(db, ['trial_key']).length;
    expect(stored).toBeLessThan(5);
    const resumed = nanobench(['run', '--resume', runId, '--db', db, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout).trials).toHaveLength(5);
    const keys = storedTrialRows<{ trial_key: string }>(db, ['trial_key']).map((r) => r.trial_key);
    expect(new Set(keys).size).toBe(5);
  });

  it('refuses to resume on changed task files, and options that would change the run', () => {
    const dir = tempDir('nb-lease-');
    const ds = join(dir, 'ds');
    mkdirSync(join(ds, 'tasks'), { recursive: true });
    for (const f of ['textkit-001.json', 'textkit-002.json'])
      copyFileSync(join(EXAMPLES, 'tasks', f), join(ds, 'tasks', f));
    const db = join(dir, 'r.sqlite');
    // A finished run made to look interrupted after its first task: what a kill leaves.
    const r = nanobench([
      'run',
      ds,
      '--agent',
      'nop',
      '--db',
      db,
      '--sandbox',
      'none',
      '--mirror',
      join(EXAMPLES, 'mirror'),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const d = new Database(db);
    d.prepare("UPDATE runs SET status = 'interrupted'").run();
    d.prepare("DELETE FROM trials WHERE task_id = 'textkit-002'").run();
    d.close();
    const file = join(ds, 'tasks', 'textkit-002.json');
    writeFileSync(
      file,
      JSON.stringify(
        {
          ...JSON.parse(readFileSync(file, 'utf8')),
          fail_to_pass: ['js::truncate > keeps short strings'],
        },
        null,
        2,
      ),
    );

    const changed = nanobench(['run', '--resume', '--db', db]);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toMatch(/task\(s\) textkit-002 changed since run .* started/);
    expect(changed.stderr).toMatch(/--allow-changed-tasks/);

    const withAgent = nanobench(['run', '--resume', '--db', db, '--agent', 'oracle']);
    expect(withAgent.code).toBe(2);
    expect(withAgent.stderr).toMatch(
      /--resume keeps the run's stored configuration; --agent cannot be combined with it/,
    );
    const withDataset = nanobench(['run', ds, '--resume', '--db', db]);
    expect(withDataset.code).toBe(2);
    expect(withDataset.stderr).toMatch(/do not name datasets/);

    const allowed = nanobench(['run', '--resume', '--db', db, '--allow-changed-tasks', '--json']);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(allowed.stderr).toMatch(
      /grading the rest of the run on the changed task\(s\) textkit-002/,
    );
  });
});
