// Issue 24: `nanobench task mine` through the CLI, on a generated repository whose history holds
// admissible, flaky, test-less, docs-only, too-large and already-passing PRs, squash commits and a
// merge commit (test/fixtures/mine/build-mine-repo.mjs). Real git, real gates, real unittest runs.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildMineRepo } from '../fixtures/mine/build-mine-repo.mjs';
import { nanobench, tempDir } from '../helpers/cli.js';

interface Row {
  commit: string;
  pr: number;
  kind: string;
  status: 'admitted' | 'rejected';
  reason?: string;
  detail: string;
  task_id?: string;
  fail_to_pass?: number;
  pass_to_pass?: number;
  timings?: { env_ms: number; verify_ms: number; flaky_ms: number; total_ms: number };
  resumed?: boolean;
  written?: string;
}
interface MineJson {
  repo: string;
  found: number;
  rows: Row[];
  admitted: number;
  rejected: Record<string, number>;
}

const root = tempDir('nb-mine-');
const cache = join(root, 'cache');
const state = join(root, 'state.json');
let repo: { root: string; shas: Record<string, string> };

function mineJson(args: string[]): { json: MineJson; stderr: string } {
  const r = nanobench([
    'task',
    'mine',
    '--repo',
    repo.root,
    '--name',
    'fixtures/tally',
    '--cache-dir',
    cache,
    '--state',
    state,
    '--json',
    ...args,
  ]);
  if (r.code !== 0) throw new Error(`task mine exited ${r.code}\n${r.stderr}`);
  return { json: JSON.parse(r.stdout), stderr: r.stderr };
}

const verdicts = (m: MineJson) =>
  Object.fromEntries(m.rows.map((r) => [r.pr, r.status === 'admitted' ? 'admitted' : r.reason]));

beforeAll(() => {
  repo = buildMineRepo(root);
});

describe('task mine', () => {
  let first: MineJson;

  it('judges every merged PR: two admitted, the rest rejected with the reason', () => {
    const { json, stderr } = mineJson([]);
    first = json;
    expect(json.repo).toBe('fixtures/tally');
    // The direct push ("Bump version") is no PR: 7 candidates, newest first.
    expect(json.rows.map((r) => r.pr)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect(json.rows.some((r) => r.commit === repo.shas.push)).toBe(false);
    expect(verdicts(json)).toEqual({
      7: 'too_large',
      6: 'no_failing_test',
      5: 'admitted',
      4: 'docs_only',
      3: 'no_tests',
      2: 'flaky',
      1: 'admitted',
    });
    const byPr = (n: number) => json.rows.find((r) => r.pr === n)!;
    expect(byPr(5)).toMatchObject({ kind: 'merge', task_id: 'tally-5', fail_to_pass: 2 });
    expect(byPr(1)).toMatchObject({
      kind: 'squash',
      task_id: 'tally-1',
      fail_to_pass: 1,
      pass_to_pass: 2,
    });
    expect(byPr(1).timings!.verify_ms).toBeGreaterThan(0);
    expect(byPr(1).timings!.flaky_ms).toBeGreaterThan(0);
    expect(byPr(2).detail).toContain('test_first_run (passed, failed, failed)');
    expect(byPr(7).detail).toContain('16 files (limit 15');
    expect(json.admitted).toBe(2);
    expect(json.rejected).toEqual({
      too_large: 1,
      no_failing_test: 1,
      docs_only: 1,
      no_tests: 1,
      flaky: 1,
    });
    // Progress on stderr; nothing written but the state.
    expect(stderr).toMatch(/\[3\/7\] #5 /);
    expect(existsSync(state)).toBe(true);
    expect(readdirSync(root).sort()).toEqual(['cache', 'state.json', 'tally']);
  });

  it('a second invocation decides nothing again, and --out writes the admitted tasks', () => {
    const out = join(root, 'dataset');
    const started = Date.now();
    const { json, stderr } = mineJson(['--out', out]);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(json.rows.every((r) => r.resumed)).toBe(true);
    expect(verdicts(json)).toEqual(verdicts(first));
    expect(stderr).not.toContain('gate verification');
    expect(readdirSync(join(out, 'tasks')).sort()).toEqual(['tally-1.json', 'tally-5.json']);
    const task = JSON.parse(readFileSync(join(out, 'tasks', 'tally-1.json'), 'utf8'));
    expect(task).toMatchObject({
      task_id: 'tally-1',
      repo: 'fixtures/tally',
      pr_url: 'https://github.com/fixtures/tally/pull/1',
      pr_commit: repo.shas.pr1,
      base_commit: repo.shas.initial,
      test_paths: ['tests/test_stats.py'],
      fail_to_pass: ['py::tests.test_stats.StatsTest.test_median_even'],
      status: { state: 'calibrating' },
    });
    expect(task.pass_to_pass).toHaveLength(2);
    // What only a curator can write is left as placeholders (every loader rejects them).
    expect(task.problem_statement).toMatch(/^TODO\(curator\)/);
    // Never overwritten: a third run keeps the curator's edits.
    const again = mineJson(['--out', out]).json;
    expect(again.rows.find((r) => r.pr === 1)!.written).toMatch(/exists \(kept\)$/);
  });

  it('--since, --until and --limit select the candidates', () => {
    const range = mineJson(['--since', '2026-02-01', '--until', '2026-02-12']).json;
    expect(range.rows.map((r) => r.pr)).toEqual([6, 5]);
    const limited = mineJson(['--limit', '2']).json;
    expect(limited.rows.map((r) => r.pr)).toEqual([7, 6]);
    expect(limited.found).toBe(7);
  });

  it('other options decide again: --max-files 20 lets #7 through to the gates', () => {
    const { json } = mineJson(['--max-files', '20', '--limit', '1']);
    expect(json.rows[0]).toMatchObject({ pr: 7, reason: 'no_failing_test' });
    expect(json.rows[0].resumed).toBeUndefined();
  });

  it('prints one row per candidate and a summary without --json', () => {
    const r = nanobench([
      'task',
      'mine',
      '--repo',
      repo.root,
      '--name',
      'fixtures/tally',
      '--cache-dir',
      cache,
      '--state',
      state,
    ]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(8);
    expect(lines[2]).toMatch(/^ADMIT {3}#5 .* tally-5: 2 fail_to_pass, 0 pass_to_pass; env /);
    expect(lines[5]).toMatch(/^REJECT {2}#2 .* flaky: flakiness: /);
    expect(lines[7]).toBe(
      'fixtures/tally: 7 candidate(s): 2 admitted by the automatic gates, 5 rejected (too large 1, no failing test 1, docs only 1, no tests 1, flaky 1)',
    );
  });

  it('bad input is one line and exit 2', () => {
    const bad = (args: string[], text: RegExp) => {
      const r = nanobench(['task', 'mine', ...args]);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(text);
    };
    bad(['--repo', join(root, 'nope')], /no such path or URL/);
    bad(['--repo', repo.root, '--since', 'last week'], /--since must be a date like 2026-01-31/);
    bad(
      ['--repo', repo.root, '--limit', '0'],
      /--limit must be an integer from 1 to 100000, got "0"/,
    );
    bad(['--repo', repo.root, '--name', 'tally'], /--name must be owner\/name/);
  });
});
