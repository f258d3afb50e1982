// The example dataset: task files valid, coverage as promised, bundles and task files in sync.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { buildManifest, canonicalJson, loadManifest } from '../../src/task/manifest.js';
import type { Task } from '../../src/task/schema.js';
import { loadInline } from '../helpers/tasks.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const EXAMPLES = join(ROOT, 'examples');
const tasks = loadInline(EXAMPLES).map((t) => t.task);
const scratch = mkdtempSync(join(tmpdir(), 'nanobench-examples-test-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function git(cwd: string, args: string[], input?: string) {
  return spawnSync('git', ['-c', 'core.autocrlf=false', ...args], { cwd, input, encoding: 'utf8' });
}

/** Paths named by the "diff --git a/X b/X" headers of a unified diff. */
function patchFiles(patch: string): string[] {
  return [...patch.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)].map((m) => m[2]);
}

function isTestFile(task: Task, path: string): boolean {
  return task.test_suites.some((s) =>
    s.test_files.some((p) => (p.endsWith('/') ? path.startsWith(p) : path === p)),
  );
}

function bundleOf(task: Task): string {
  return join(EXAMPLES, 'mirror', `${task.repo}.bundle`);
}

describe('example dataset', () => {
  it('loads with loadDataset and has at least five tasks', () => {
    expect(tasks.length).toBeGreaterThanOrEqual(5);
    for (const t of tasks) {
      expect(t.repo).toMatch(/^nanobench-fixtures\//);
      expect(t.status.state).toBe('active');
    }
  });

  it('covers tiers 1 to 4, a bug fix, a feature and a polyglot task', () => {
    expect(new Set(tasks.map((t) => t.complexity_tier))).toEqual(new Set([1, 2, 3, 4]));
    const types = new Set(tasks.map((t) => t.task_type));
    expect(types.has('bug_fix')).toBe(true);
    expect(types.has('feature')).toBe(true);
    const polyglot = tasks.filter((t) => t.test_suites.length > 1);
    expect(polyglot.length).toBeGreaterThanOrEqual(1);
    for (const t of polyglot) {
      // every suite of a polyglot task has fail_to_pass tests: a one-sided fix is visible
      for (const s of t.test_suites) {
        expect(t.fail_to_pass.some((id) => id.startsWith(`${s.name}::`))).toBe(true);
      }
    }
  });

  it('has exactly one task with an install command', () => {
    expect(tasks.filter((t) => t.install_command !== null)).toHaveLength(1);
  });

  it('keeps fail_to_pass and pass_to_pass non-empty and disjoint', () => {
    for (const t of tasks) {
      expect(t.fail_to_pass.length, t.task_id).toBeGreaterThan(0);
      expect(t.pass_to_pass.length, t.task_id).toBeGreaterThan(0);
      const f2p = new Set(t.fail_to_pass);
      expect(
        t.pass_to_pass.filter((id) => f2p.has(id)),
        t.task_id,
      ).toEqual([]);
    }
  });

  it('lists as required_files exactly the non-test files of the golden patch', () => {
    for (const t of tasks) {
      const golden = patchFiles(t.ground_truth_patch);
      expect([...t.required_files].sort(), t.task_id).toEqual([...golden].sort());
      expect(
        golden.filter((p) => isTestFile(t, p)),
        t.task_id,
      ).toEqual([]);
      const tests = patchFiles(t.test_patch);
      expect(tests.length, t.task_id).toBeGreaterThan(0);
      expect(
        tests.filter((p) => !isTestFile(t, p)),
        t.task_id,
      ).toEqual([]);
    }
  });

  it('rebuilds the fixture bundles with the SHAs of the task files (build.mjs --check)', () => {
    const r = spawnSync(process.execPath, [join(EXAMPLES, 'fixtures', 'build.mjs'), '--check'], {
      cwd: ROOT,
      encoding: 'utf8',
    });
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
  });

  it('has each base_commit in its bundle, and both patches apply there', () => {
    for (const t of tasks) {
      const bundle = bundleOf(t);
      expect(existsSync(bundle), bundle).toBe(true);
      const dir = join(scratch, t.task_id);
      const clone = git(scratch, ['clone', '--quiet', '--no-checkout', bundle, dir]);
      expect(clone.status, clone.stderr).toBe(0);
      expect(git(dir, ['cat-file', '-e', `${t.base_commit}^{commit}`]).status, t.task_id).toBe(0);
      expect(git(dir, ['checkout', '--quiet', t.base_commit]).status, t.task_id).toBe(0);
      for (const patch of [t.ground_truth_patch, t.test_patch]) {
        const r = git(dir, ['apply', '--check', '-'], patch);
        expect(r.status, `${t.task_id}: ${r.stderr}`).toBe(0);
      }
    }
  });
});

// Issue #13: the examples pass their own CI job (nanobench validate): a manifest with a cutoff the
// tasks are merged after, and the fixture repositories' low score waived where everyone sees it.
describe('example dataset manifest', () => {
  const manifest = loadManifest(EXAMPLES);

  it('is up to date with the task files (else: nanobench dataset manifest examples --version X)', () => {
    expect(manifest).toBeDefined();
    expect(canonicalJson(buildManifest(EXAMPLES))).toBe(canonicalJson(manifest));
  });

  it('has a cutoff every task was merged after, and a fixture-repository waiver per repository', () => {
    const cutoff = Date.parse(manifest?.cutoff ?? '');
    for (const t of tasks) expect(Date.parse(t.merged_at), t.task_id).toBeGreaterThan(cutoff);
    for (const repo of new Set(tasks.map((t) => t.repo)))
      expect(manifest?.repos[repo]?.waiver, repo).toMatch(/^fixture repository: /);
  });
});
