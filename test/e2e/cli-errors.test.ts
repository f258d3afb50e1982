// A user's mistake gets one clear line on stderr, a non-zero exit and no stack trace.
import { copyFileSync, cpSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.js';
import { EXAMPLES, nanobench, runJson, tempDir } from '../helpers/cli.js';

function expectUserError(args: string[], pattern: RegExp, env?: NodeJS.ProcessEnv) {
  const r = nanobench(args, { env });
  expect(r.code).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('CLI errors', () => {
  const db = join(tempDir(), 'r.sqlite');
  it('a missing dataset', () =>
    expectUserError(['run', 'nope', '--agent', 'nop', '--db', db], /nope: no such dataset/));
  it('an unknown agent', () =>
    expectUserError(
      ['run', 'examples', '--agent', 'claude', '--db', db],
      /--agent must be nanocoder, bare, oracle, nop or command/,
    ));
  it('a bad --runs', () =>
    expectUserError(
      ['run', 'examples', '--agent', 'nop', '--runs', '0', '--db', db],
      /--runs must be an integer from 1 to 1000, got "0"/,
    ));
  it('an unknown task id', () =>
    expectUserError(
      ['run', 'examples', '--agent', 'nop', '--task', 'zzz', '--db', db],
      /--task: no task named zzz/,
    ));
  it('--sandbox auto with a broken bwrap refuses an LLM agent, telling to pass --sandbox none', () => {
    // bwrap as it fails where unprivileged user namespaces are off.
    const bin = tempDir();
    writeFileSync(
      join(bin, 'bwrap'),
      '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n',
      { mode: 0o755 },
    );
    const args = ['run', 'examples', '--task', 'textkit-001', '--mirror', 'examples/mirror'];
    expectUserError(
      [...args, '--agent', 'nanocoder', '--model', 'competent', '--db', db],
      /^nanobench: --sandbox auto: bwrap unusable \(bwrap: setting up uid map: Permission denied\); an LLM agent does not run without a sandbox unless asked: fix bwrap or pass --sandbox none explicitly\n$/,
      { PATH: `${bin}:${process.env.PATH}` },
    );
  });
  it('nanocoder without a model', () =>
    expectUserError(['run', 'examples', '--agent', 'nanocoder', '--db', db], /needs --model/));
  it('an unknown scripted model', () =>
    expectUserError(
      ['run', 'examples', '--agent', 'nanocoder', '--model', 'gpt-9', '--db', db],
      /scripted model\(s\) gpt-9 not found/,
    ));
  it('a malformed task file names the file and the field', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'bad.json'),
      JSON.stringify({ schema_version: 1, task_id: 'x', complexity_tier: 9 }),
    );
    const r = nanobench(['run', dir, '--agent', 'nop', '--db', db]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /bad.json: field "complexity_tier": Number must be less than or equal to 4/,
    );
    expect(r.stderr).toMatch(/bad.json: field "repo": missing; expected string/);
  });
  it('--help explains the run command', () => {
    const r = nanobench(['run', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--mode <mode>\s+hinted \| navigation \| both/);
  });
  it('report on a database without runs', () => {
    const empty = join(tempDir(), 'e.sqlite');
    Store.open(empty).close();
    expectUserError(['report', '--db', empty], /no runs stored yet/);
  });
});

// Issue 12: usage errors exit 2 everywhere (commander's own errors too), one line each; --help
// and --version exit 0. 1 is reserved for findings (a regression, a failed gate, an infra-only run).
const COMMANDS = [
  ['run'],
  ['demo'],
  ['report'],
  ['compare'],
  ['schemas'],
  ['task', 'import'],
  ['task', 'new'],
  ['task', 'retire'],
  ['task', 'dispute'],
  ['audit', 'export'],
  ['audit', 'score'],
  ['validate'],
  ['dataset', 'fetch'],
  ['dataset', 'manifest'],
  ['worker'],
  ['merge'],
  ['ci', 'comment'],
];

/** Exit 2, nothing on stdout, exactly one line on stderr, no stack trace. */
function expectUsageLine(args: string[], pattern: RegExp) {
  const r = nanobench(args, { timeoutMs: 60_000 });
  expect({ code: r.code, stdout: r.stdout }).toEqual({ code: 2, stdout: '' });
  expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('exit codes: usage errors exit 2 on every command', () => {
  for (const path of COMMANDS) {
    const name = path.join(' ');
    it(`${name}: an unknown option is one line, exit 2, pointing at --help`, () =>
      expectUsageLine(
        [...path, '--no-such-option'],
        // Commander checks required options first.
        new RegExp(
          `(unknown option '--no-such-option'|required option .* not specified).*nanobench ${name} --help`,
        ),
      ));
    it(`${name} --help exits 0`, () => {
      const r = nanobench([...path, '--help']);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`Usage: nanobench ${name}`);
    });
  }
  it('missing arguments, required options and option values exit 2', () => {
    expectUsageLine(['compare', 'onlyone'], /missing required argument 'candidate'/);
    expectUsageLine(['validate'], /missing required argument 'targets'/);
    expectUsageLine(['merge', 'out.sqlite'], /missing required argument 'db'/);
    expectUsageLine(['task', 'new'], /missing required argument 'taskId'/);
    expectUsageLine(['task', 'retire', 'x'], /required option '--reason <text>' not specified/);
    expectUsageLine(['audit', 'export', '--out', 'x.json'], /required option '--run <runId>'/);
    expectUsageLine(['worker'], /required option '--queue <url>'/);
    expectUsageLine(['ci', 'comment'], /required option '--run <ref>'/);
    expectUsageLine(['report', '--db'], /option '--db <path>' argument missing/);
    expectUsageLine(['report', 'a', 'b'], /too many arguments for 'report'/);
    expectUsageLine(['frobnicate'], /unknown command 'frobnicate'/);
  });
  it('bad choices exit 2', () => {
    const db = join(tempDir(), 'r.sqlite');
    expectUsageLine(
      ['run', 'examples', '--agent', 'nop', '--mode', 'x', '--db', db],
      /--mode must be hinted, navigation or both/,
    );
    expectUsageLine(['report', '--format', 'pdf', '--db', db], /--format must be md, html or json/);
    expectUsageLine(
      ['compare', 'a', 'b', '--format', 'pdf', '--db', db],
      /--format must be md or json/,
    );
    expectUsageLine(
      ['run', 'examples', '--agent', 'nop', '--sandbox', 'chroot', '--db', db],
      /--sandbox must be auto, bwrap, none, podman, docker, got "chroot"/,
    );
  });
  it('no command, or a command group without its subcommand, shows usage and exits 2', () => {
    for (const args of [[], ['task'], ['audit'], ['dataset'], ['ci']]) {
      const r = nanobench(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/Usage: nanobench/);
    }
  });
  it('--version prints the version and exits 0', () => {
    const r = nanobench(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
  it("a command's own --version option is still the command's", () => {
    const dir = tempDir();
    cpSync(join(EXAMPLES, 'tasks'), join(dir, 'tasks'), { recursive: true });
    const r = nanobench(['dataset', 'manifest', dir, '--version', '9.9.9', '--check', '--json']);
    expect(r.code, r.stderr).toBe(1); // no dataset.json yet: out of date
    expect(JSON.parse(r.stdout).version).toBe('9.9.9');
  });
});

describe('bounds: options that would run out of memory or time are refused at once', () => {
  const db = join(tempDir(), 'r.sqlite');
  it('--runs 1e9', () =>
    expectUsageLine(
      ['run', 'examples', '--agent', 'nop', '--runs', '1e9', '--db', db],
      /--runs must be an integer from 1 to 1000, got "1e9"/,
    ));
  it('demo --runs 1e9', () =>
    expectUsageLine(
      ['demo', '--runs', '1e9', '--db', db],
      /--runs must be an integer from 1 to 1000/,
    ));
  it('--concurrency', () => {
    expectUsageLine(
      ['run', 'examples', '--agent', 'nop', '--concurrency', '100000', '--db', db],
      /--concurrency must be an integer from 1 to 256, got "100000"/,
    );
    expectUsageLine(
      ['worker', '--queue', 'redis://127.0.0.1:1', '--concurrency', '100000'],
      /--concurrency must be an integer from 1 to 256/,
    );
  });
  it('worker --lock-ms past what a timer can hold', () =>
    expectUsageLine(
      ['worker', '--queue', 'redis://127.0.0.1:1', '--lock-ms', '1e12'],
      /--lock-ms must be an integer from 1000 to 86400000/,
    ));
  it('a plan over the maximum says how big it would be, before anything runs', () => {
    const models = Array.from({ length: 11 }, (_, i) => `m${i}`).join(',');
    const args = ['run', 'examples', '--agent', 'nanocoder', '--model', models, '--runs', '1000'];
    expectUsageLine(
      [...args, '--mode', 'both', '--db', db],
      /the plan would have 110,000 trials \(5 tasks × 11 models × 2 modes × 1,000 runs\); at most 100,000/,
    );
  });
});

describe('stored results: bad databases and paths are one line each', () => {
  const dir = tempDir();
  const db = join(dir, 'r.sqlite');
  let runId = '';
  beforeAll(() => {
    const task = join(EXAMPLES, 'tasks', 'textkit-001.json');
    runId = runJson(['run', task, '--agent', 'nop', '--sandbox', 'none', '--db', db]).run_id;
  });

  it('report --out into a missing directory', () => {
    const out = join(dir, 'no', 'such', 'r.md');
    expectUsageLine(
      ['report', '--db', db, '--out', out],
      new RegExp(`${out}: cannot write the report \\(no such directory\\)`),
    );
  });

  it('read-only commands never create a database: a missing directory or file is refused', () => {
    const missingDir = join(dir, 'nowhere', 'r.sqlite');
    const missingFile = join(dir, 'absent.sqlite');
    for (const missing of [missingDir, missingFile]) {
      const none = new RegExp(`${missing}: no such results database`);
      expectUsageLine(['report', '--db', missing], none);
      expectUsageLine(['compare', 'a', 'b', '--db', missing], none);
      expectUsageLine(['compare', `${db}:latest`, `${missing}:latest`], none);
      expectUsageLine(
        ['audit', 'export', '--run', 'x', '--out', join(dir, 'a.json'), '--db', missing],
        none,
      );
      expectUsageLine(['ci', 'comment', '--run', 'latest', '--dry-run', '--db', missing], none);
      expectUsageLine(['run', '--resume', '--db', missing], none);
    }
    expect(existsSync(join(dir, 'nowhere'))).toBe(false);
    expect(existsSync(missingFile)).toBe(false);
  });

  it('a file that is not a NanoBench database is left as it is', () => {
    const empty = join(dir, 'empty.sqlite');
    writeFileSync(empty, '');
    expectUsageLine(['report', '--db', empty], /empty\.sqlite: not a NanoBench results database/);
    expectUsageLine(
      ['merge', join(dir, 'm.sqlite'), empty],
      /empty\.sqlite: not a NanoBench results database/,
    );
    expect(statSync(empty).size).toBe(0);
    const text = join(dir, 'notes.txt');
    writeFileSync(text, 'these are my notes, not a database\n'.repeat(200));
    expectUsageLine(['report', '--db', text], /notes\.txt: not a SQLite database/);
    expectUsageLine(
      ['compare', `${text}:latest`, `${db}:latest`],
      /notes\.txt: not a SQLite database/,
    );
  });

  it('a database with corrupted pages', () => {
    const bad = join(dir, 'corrupt.sqlite');
    copyFileSync(db, bad);
    const bytes = readFileSync(bad);
    const pageSize = bytes.readUInt16BE(16);
    // Keep page 1 (header and schema); every other page becomes garbage.
    bytes.fill(0xa5, pageSize);
    writeFileSync(bad, bytes);
    const corrupt = /corrupt\.sqlite: the results database is corrupt/;
    expectUsageLine(['report', '--db', bad], corrupt);
    expectUsageLine(['compare', `${bad}:latest`, `${db}:latest`], corrupt);
    expectUsageLine(['ci', 'comment', '--run', 'latest', '--dry-run', '--db', bad], corrupt);
  });

  it('compare X X is refused', () => {
    const same = /base and candidate are the same run/;
    expectUsageLine(['compare', runId, runId, '--db', db], same);
    expectUsageLine(['compare', 'latest', runId, '--db', db], same);
    expectUsageLine(['compare', `${db}:${runId}`, runId, '--db', db], same);
    expectUsageLine(
      ['ci', 'comment', '--run', runId, '--compare', 'latest', '--dry-run', '--db', db],
      same,
    );
  });
});

describe('other files the user names: one line each (same sweep)', () => {
  const dir = tempDir();
  const file = join(dir, 'a-file');
  writeFileSync(file, '');
  it('schemas --write into a missing directory', () =>
    expectUsageLine(
      ['schemas', '--write', join(dir, 'missing')],
      /missing\/task\.schema\.json: cannot write the schema \(no such directory\)/,
    ));
  it('task new --out below a file', () =>
    expectUsageLine(
      ['task', 'new', 'x-1', '--out', join(file, 'x-1.json')],
      /a-file\/x-1\.json: cannot write the task file \(a parent is not a directory\)/,
    ));
  it('--providers-config naming a missing file', () =>
    expectUsageLine(
      ['run', 'examples', '--agent', 'nanocoder', '--model', 'competent'].concat([
        '--providers-config',
        join(dir, 'nope.json'),
        '--db',
        join(dir, 'r.sqlite'),
      ]),
      /--providers-config .*nope\.json: no such file/,
    ));
  it('a task timeout past what a timer can hold (the agent was killed at once)', () => {
    const task = JSON.parse(readFileSync(join(EXAMPLES, 'tasks', 'textkit-001.json'), 'utf8'));
    task.timeouts = { agent_sec: 1e7, verifier_sec: 300 };
    writeFileSync(join(dir, 'long.json'), JSON.stringify(task));
    expectUsageLine(
      ['run', join(dir, 'long.json'), '--agent', 'nop', '--db', join(dir, 'r.sqlite')],
      /long\.json: field "timeouts\.agent_sec": Number must be less than or equal to 86400/,
    );
  });
});
