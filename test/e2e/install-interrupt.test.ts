// Issue 22 §5: "One Ctrl-C during the install step is ignored until the install ends (39 s); a
// second one, or a kill -9, leaves the install running as root, unsandboxed, and --resume does
// not end it." A real run through the CLI of a task whose install command sleeps (while a hold
// file exists); the install runs in its own process group, in a pid namespace that dies with
// NanoBench where one can be made, and tagged with the run and its execution: Ctrl-C stops it
// within seconds, a kill -9 takes it down, and where no namespace can be made (no unshare on
// PATH) the resume ends what the killed execution left.
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CLI, EXAMPLES, nanobench, varTempDir } from '../helpers/cli.js';
import { storedTrialRows } from '../helpers/db.js';
import { cleanup, killHard, processesWith, start, waitFor } from '../helpers/processes.js';

const dirs: string[] = [];
const markers: string[] = [];
afterEach(() => {
  for (const m of markers.splice(0)) cleanup(m);
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A dataset of one task (textkit-001's) whose install sleeps five minutes while `hold` exists. */
function slowInstallDataset(dir: string, marker: string, hold: string): string {
  const task = JSON.parse(readFileSync(join(EXAMPLES, 'tasks', 'textkit-001.json'), 'utf8'));
  task.task_id = 'textkit-001-slow-install';
  // python3 keeps the marker in its argv (a shell may exec its last command and lose it).
  task.install_command = `if [ -e ${hold} ]; then python3 -c 'import time; time.sleep(300)' ${marker}; fi; echo installed`;
  const dataset = join(dir, 'dataset');
  mkdirSync(join(dataset, 'tasks'), { recursive: true });
  writeFileSync(join(dataset, 'tasks', `${task.task_id}.json`), JSON.stringify(task, null, 2));
  return dataset;
}

/** A PATH with every program of /usr/bin but `missing` (a machine without them). */
function pathWithout(missing: string[]): string {
  const bin = varTempDir('nb-path-');
  dirs.push(bin);
  for (const tool of readdirSync('/usr/bin'))
    if (!missing.includes(tool)) symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
  return bin;
}

function setup(env: NodeJS.ProcessEnv = process.env) {
  const marker = `nb-install-${randomUUID()}`;
  markers.push(marker);
  const dir = varTempDir('nb-install-');
  dirs.push(dir);
  const hold = join(dir, 'hold');
  writeFileSync(hold, '');
  const db = join(dir, 'r.sqlite');
  const dataset = slowInstallDataset(dir, marker, hold);
  const run = start(
    [
      process.execPath,
      CLI,
      ...['run', dataset, '--agent', 'oracle', '--runs', '1', '--mode', 'hinted'],
      ...['--mirror', join(EXAMPLES, 'mirror'), '--db', db],
    ],
    { env },
  );
  const exited = new Promise<number | null>((r) => run.once('exit', (code) => r(code)));
  // The sleeping install (python3, and the shell around it) is up.
  const installing = async () => {
    const up = await waitFor(() => processesWith(marker).length >= 2, 120_000);
    expect(up, run.output()).toBe(true);
  };
  const resume = () => {
    rmSync(hold); // a resumed install is quick; a leftover one sleeps on
    const r = nanobench(['run', '--resume', '--db', db, '--json'], { env, timeoutMs: 180_000 });
    expect(r.code, r.stderr).toBe(0);
    return r;
  };
  return { marker, db, run, exited, installing, resume };
}

const psOf = (pids: number[]) =>
  pids
    .map((p) => {
      try {
        return `${p}: ${readFileSync(`/proc/${p}/cmdline`, 'utf8').replaceAll('\0', ' ')}`;
      } catch {
        return `${p}: gone`;
      }
    })
    .join('\n');

type Row = { status: string; label: string | null };
const rows = (db: string) => storedTrialRows<Row>(db, ['status', 'label']);

describe('the install step of a trial', () => {
  it('is stopped within seconds by Ctrl-C, and the run resumes', async () => {
    const s = setup();
    await s.installing();
    const t0 = Date.now();
    process.kill(-s.run.pid!, 'SIGINT'); // Ctrl-C: the terminal signals the foreground group
    const late = new Promise<'late'>((r) => setTimeout(() => r('late'), 30_000));
    const code = await Promise.race([s.exited, late]);
    const ms = Date.now() - t0;
    expect(code, s.run.output()).toBe(130);
    expect(ms).toBeLessThan(10_000);
    expect(s.run.output()).toMatch(/interrupted; finish with: nanobench run --resume/);
    expect(await waitFor(() => processesWith(s.marker).length === 0, 5_000)).toBe(true);
    expect(rows(s.db)).toEqual([]); // nothing stored for the interrupted trial
    s.resume();
    expect(rows(s.db)).toEqual([{ status: 'scored', label: 'pass' }]);
  });

  it('goes with NanoBench on a second Ctrl-C', async () => {
    const s = setup();
    await s.installing();
    process.kill(-s.run.pid!, 'SIGINT');
    await new Promise((r) => setTimeout(r, 100));
    // The impatient user: Node's default, the process dies. A NanoBench that finished its first
    // Ctrl-C within those 100 ms is gone already (ESRCH), which is what this asks of it too.
    try {
      process.kill(-s.run.pid!, 'SIGINT');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
    }
    const late = new Promise<'late'>((r) => setTimeout(() => r('late'), 30_000));
    expect(await Promise.race([s.exited.then(() => 'exited'), late])).toBe('exited');
    const gone = await waitFor(() => processesWith(s.marker).length === 0, 5_000);
    expect(gone, psOf(processesWith(s.marker))).toBe(true);
    s.resume();
    expect(rows(s.db)).toEqual([{ status: 'scored', label: 'pass' }]);
  });

  it('dies with a NanoBench killed by SIGKILL (a pid namespace), and the run resumes', async () => {
    const s = setup();
    await s.installing();
    await killHard(s.run);
    const gone = await waitFor(() => processesWith(s.marker).length === 0, 5_000);
    expect(gone, psOf(processesWith(s.marker))).toBe(true);
    s.resume();
    expect(rows(s.db)).toEqual([{ status: 'scored', label: 'pass' }]);
  });

  it('without unshare (no pid namespace): what a SIGKILL left is ended by the resume', async () => {
    const bin = pathWithout(['unshare']);
    const s = setup({ ...process.env, PATH: bin });
    await s.installing();
    await killHard(s.run);
    // pdeathsig took the install's shell; the sleeping python3 it started outlived NanoBench.
    await waitFor(() => processesWith(s.marker).length === 1, 5_000);
    const left = processesWith(s.marker);
    expect(left).toHaveLength(1);
    expect(readFileSync(`/proc/${left[0]}/cmdline`, 'utf8')).toMatch(/^python3/);
    const r = s.resume();
    expect(r.stderr).toMatch(/ended \d+ process\(es\) .*left by an earlier execution of run/);
    expect(processesWith(s.marker)).toEqual([]);
    expect(rows(s.db)).toEqual([{ status: 'scored', label: 'pass' }]);
  });
});
