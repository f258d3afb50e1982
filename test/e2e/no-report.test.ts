// Issue 11 (1) through the CLI: a suite whose runner never writes its report. The fixture
// project's command-line parser reads process.argv and calls process.exit on a usage error; the
// suite runs its test file in the runner's own process (node with the JUnit reporter writing
// junit.xml), so the exit ends the runner before the report, at base (where -w is unknown) and
// with the golden patch (where a test leaves the parser to read process.argv: no file given).
// The gate must say exactly that, with the runner's last output, and point at the suite command;
// a trial records the suite's status. (The same failure under jest, where --ci --json
// --outputFile are what the parser rejects, is in test/verify/suite-status.test.ts.)
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { nanobench, tempDir } from '../helpers/cli.js';
import { storedTrialRows } from '../helpers/db.js';

const root = tempDir('nb-no-report-');
const ds = join(root, 'ds');
const cache = join(root, 'cache');
const taskFile = join(ds, 'tasks', 'wc-cli-001.json');

const CLI = (
  options: string,
) => `// Command-line options of wc-cli; reads process.argv unless given a list.
export function parseArgs(argv = process.argv.slice(2)) {
  const opts = { lines: false, words: false, files: [] };
  for (const a of argv) {
${options}    else if (a.startsWith('-')) {
      console.error(\`wc-cli: unknown option \${a}\`);
      process.exit(2);
    } else opts.files.push(a);
  }
  if (opts.files.length === 0) {
    console.error('usage: wc-cli [-l] [-w] FILE...');
    process.exit(2);
  }
  return opts;
}
`;
const LINES = "    if (a === '-l') opts.lines = true;\n";
const WORDS = "    else if (a === '-w') opts.words = true;\n";

const TESTS = (extra: string) => `import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseArgs } from '../src/cli.mjs';

test('reads -l', () => {
  assert.equal(parseArgs(['-l', 'a.txt']).lines, true);
});
${extra}`;
const NEW_TESTS = `
test('reads -w', () => {
  assert.equal(parseArgs(['-w', 'a.txt']).words, true);
});

test('reads the process arguments by default', () => {
  assert.equal(parseArgs().lines, false);
});
`;

function git(cwd: string, args: string[], date = '2026-02-01T10:00:00Z'): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'Ana Silva',
      GIT_AUTHOR_EMAIL: 'ana@example.com',
      GIT_COMMITTER_NAME: 'Ana Silva',
      GIT_COMMITTER_EMAIL: 'ana@example.com',
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date,
    },
  }).trim();
}

function commit(repo: string, files: Record<string, string>, message: string, date?: string) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '-m', message], date);
  return git(repo, ['rev-parse', 'HEAD']);
}

const readTask = () => JSON.parse(readFileSync(taskFile, 'utf8'));
const writeTask = (t: unknown) => writeFileSync(taskFile, `${JSON.stringify(t, null, 2)}\n`);

beforeAll(() => {
  const repo = join(root, 'wc-cli');
  mkdirSync(repo, { recursive: true });
  git(repo, ['init', '-q', '-b', 'main']);
  commit(
    repo,
    {
      'package.json': '{ "name": "wc-cli", "private": true, "type": "module" }\n',
      'src/cli.mjs': CLI(LINES),
      'test/cli.test.mjs': TESTS(''),
    },
    'wc-cli: -l',
    '2026-01-10T10:00:00Z',
  );
  const pr = commit(
    repo,
    { 'src/cli.mjs': CLI(LINES + WORDS), 'test/cli.test.mjs': TESTS(NEW_TESTS) },
    'feat: -w counts words',
  );
  const bare = join(ds, 'mirror', 'fixtures', 'wc-cli.git');
  mkdirSync(dirname(bare), { recursive: true });
  execFileSync('git', ['clone', '-q', '--bare', repo, bare]);
  writeFileSync(
    join(ds, 'dataset.json'),
    JSON.stringify({ name: 'no-report', version: '0.1.0', cutoff: '2025-12-01T00:00:00Z' }),
  );
  const r = nanobench(
    ['task', 'import', '--repo', bare, '--commit', pr, '--id', 'wc-cli-001'].concat([
      '--out',
      taskFile,
    ]),
  );
  if (r.code !== 0) throw new Error(r.stderr);
  writeTask({
    ...readTask(),
    domain: 'cli',
    complexity_tier: 1,
    reasoning_category: 'feature',
    problem_statement: 'wc-cli should accept -w to count words.',
    // Imported tasks enter calibrating; this one is run as a released task.
    status: { state: 'active' },
    test_suites: [
      {
        name: 'js',
        language: 'javascript',
        command:
          'node --test-reporter=junit --test-reporter-destination=junit.xml test/cli.test.mjs',
        format: 'junit-xml',
        result_file: 'junit.xml',
        test_files: ['test/'],
      },
    ],
  });
});

describe('a suite whose runner never writes its report', () => {
  it("validate: the verification gate says so, with the runner's last output", () => {
    const r = nanobench(
      ['validate', taskFile, '--only', 'verification', '--json'].concat(['--cache-dir', cache]),
    );
    expect(r.code, r.stderr).toBe(1);
    const v = JSON.parse(r.stdout).tasks[0];
    const gate = v.gates.find((g: { gate: string }) => g.gate === 'verification');
    expect(gate.status).toBe('fail');
    expect(gate.reason).toMatch(
      /^suite js produced no report at base \(expected junit.xml \/ junit-xml: the file was not written\); the runner's last output: wc-cli: unknown option -w$/,
    );
    expect(gate.reason).not.toMatch(/golden patch makes no failing test pass/);
    expect(gate.fix).toMatch(/narrow the suite command to the PR's test files/);
    expect(gate.fix).not.toMatch(/re-import/);
  });

  // Issue 22 §3: the golden patch itself gets no report, so the task is at fault: an infra error
  // with its own stage and code, listed by cause in every report, never the oracle's 0.0.
  it('an oracle trial is task/no_report, never scored, and the reports list it by cause', () => {
    writeTask({ ...readTask(), fail_to_pass: ['js::reads -w'] });
    const db = join(root, 'r.sqlite');
    const r = nanobench(
      ['run', ds, '--agent', 'oracle', '--runs', '1', '--db', db].concat([
        '--cache-dir',
        cache,
        '--json',
      ]),
    );
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /every trial of the run was an infrastructure error.*task\/no_report ×1/,
    );
    const rows = storedTrialRows<{
      status: string;
      error_stage: string;
      error_code: string;
      error: string;
      details: string;
    }>(db, ['status', 'error_stage', 'error_code', 'error', 'details']);
    for (const row of rows) {
      expect([row.status, row.error_stage, row.error_code]).toEqual(['error', 'task', 'no_report']);
      expect(row.error).toMatch(
        /^task: task wc-cli-001: suite js produced no report \(expected junit.xml \/ junit-xml: the file was not written\) with the golden patch; the runner's last output: .*usage: wc-cli/,
      );
      expect(JSON.parse(row.details).unreported).toEqual({ noReport: ['js'], missing: [] });
    }
    const md = nanobench(['report', '--db', db]);
    expect(md.stdout).toMatch(/1× \*\*task\/no_report\*\*/);
    const html = nanobench(['report', '--db', db, '--format', 'html']);
    expect(html.stdout).toContain('task/no_report');
  });
});
