// Issue 24: the rules of `task mine` that need no gate: which commits are PRs, the triage by
// changed paths, and how a failed gate becomes one rejection reason.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { changedPaths, triage, walkCandidates } from '../../src/mine/candidates.js';
import { reasonOf } from '../../src/mine/judge.js';
import type { GateResult } from '../../src/task/evidence.js';
import { buildMineRepo } from '../fixtures/mine/build-mine-repo.mjs';
import { tempDir } from '../helpers/cli.js';

let repo: ReturnType<typeof buildMineRepo>;
beforeAll(() => {
  repo = buildMineRepo(tempDir('nb-mine-unit-'));
});

describe('walkCandidates', () => {
  it('takes squash commits ending in (#N) and merge commits naming a PR, newest first', () => {
    const c = walkCandidates(repo.root);
    expect(c.map((x) => [x.pr, x.kind])).toEqual([
      [7, 'squash'],
      [6, 'squash'],
      [5, 'merge'],
      [4, 'squash'],
      [3, 'squash'],
      [2, 'squash'],
      [1, 'squash'],
    ]);
    const merge = c.find((x) => x.pr === 5)!;
    // The base of a merge is its first parent: the PR is the whole branch.
    expect(merge.base).toBe(repo.shas.pr4);
    expect(changedPaths(repo.root, merge)).toEqual({
      paths: ['tally/stats.py', 'tests/test_mode.py'],
      deleted: [],
    });
  });

  it('compares dates itself: a date is midnight UTC, --since inclusive, --until exclusive', () => {
    const prs = (since?: string, until?: string) =>
      walkCandidates(repo.root, { since, until }).map((x) => x.pr);
    expect(prs('2026-02-01', '2026-02-12')).toEqual([6, 5]);
    expect(prs('2026-02-01T10:00:00Z')).toEqual([7, 6, 5]);
    expect(prs(undefined, '2026-02-01T10:00:00Z')).toEqual([4, 3, 2, 1]);
  });

  it('a merge of one branch into another, with no PR number, is no candidate', () => {
    const dir = tempDir('nb-mine-merge-');
    const g = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: dir,
        env: {
          ...process.env,
          GIT_CONFIG_GLOBAL: '/dev/null',
          GIT_AUTHOR_NAME: 'a',
          GIT_AUTHOR_EMAIL: 'a@x.invalid',
          GIT_COMMITTER_NAME: 'a',
          GIT_COMMITTER_EMAIL: 'a@x.invalid',
        },
      });
    g('init', '-q', '-b', 'main');
    g('commit', '-q', '--allow-empty', '-m', 'root');
    g('checkout', '-q', '-b', 'side');
    g('commit', '-q', '--allow-empty', '-m', 'side work');
    g('checkout', '-q', 'main');
    g('commit', '-q', '--allow-empty', '-m', 'main work');
    g('merge', '-q', '--no-ff', 'side', '-m', "Merge remote-tracking branch 'origin/side'");
    g('commit', '-q', '--allow-empty', '-m', 'Merge pull request #9 from x/y');
    expect(walkCandidates(join(dir, '.git')).map((x) => [x.pr, x.kind])).toEqual([[9, 'squash']]);
  });
});

describe('triage', () => {
  const limits = { maxFiles: 3 };
  it('docs only, too large, no tests, no source, or worth importing', () => {
    expect(triage(['README.md', 'docs/guide/intro.rst'], limits)?.reason).toBe('docs_only');
    expect(triage([], limits)?.reason).toBe('docs_only');
    expect(triage(['a.js', 'b.js', 'c.js', 'test/a.test.js'], limits)?.reason).toBe('too_large');
    expect(triage(['src/a.js', 'README.md'], limits)?.reason).toBe('no_tests');
    expect(triage(['test/a.test.js', 'README.md'], limits)?.reason).toBe('no_source');
    expect(triage(['.github/workflows/ci.yml', 'package.json'], limits)).toEqual({
      reason: 'no_source',
      detail: 'changes neither source code nor tests (.github/workflows/ci.yml, package.json)',
    });
    expect(triage(['src/a.ts', 'src/a.test.ts'], limits)).toBeUndefined();
    // A PR that only deletes tests adds nothing that would grade a fix.
    expect(triage(['src/a.js', 'test/a.test.js'], limits, ['test/a.test.js'])).toEqual({
      reason: 'no_tests',
      detail: 'only deletes test files (1 source file(s)): nothing would grade a fix',
    });
    // Docs inside a test directory are test fixtures, not documentation.
    expect(triage(['tests/fixtures/page.md', 'src/render.py'], limits)).toBeUndefined();
  });
});

describe('reasonOf', () => {
  const g = (
    gate: GateResult['gate'],
    details: Record<string, unknown>,
    reason = 'x',
  ): GateResult => ({ gate, status: 'fail', reason, details, ms: 0 }) as GateResult;
  it('names the failure a curator can act on', () => {
    expect(reasonOf(g('verification', { problem: 'no_failing_test' }))).toBe('no_failing_test');
    expect(reasonOf(g('verification', { problem: 'golden_fails' }))).toBe('golden_fails');
    expect(reasonOf(g('verification', { problem: 'timed_out' }))).toBe('too_slow');
    expect(reasonOf(g('verification', { problem: 'no_report' }))).toBe('suite_broken');
    expect(reasonOf(g('flakiness', { unstable: [] }))).toBe('flaky');
    expect(reasonOf(g('runtime', { slowest_ms: 1 }))).toBe('too_slow');
    expect(
      reasonOf(
        g(
          'reproducible',
          { stage: 'install' },
          'install command failed (exit 1): ERROR: Could not find a version that satisfies the requirement flit_core',
        ),
      ),
    ).toBe('registry');
    expect(
      reasonOf(
        g(
          'reproducible',
          { stage: 'install' },
          'install command failed (exit 2): make: *** [all] Error 1',
        ),
      ),
    ).toBe('install_failed');
  });
});
