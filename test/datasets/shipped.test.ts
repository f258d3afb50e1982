// Issue 11: the datasets shipped in the package. CI cannot reach their repositories, so what it
// checks is what the files say: every active task has passing gate evidence for its current
// content (kept in <dataset>/evidence/, produced by `validate --record-evidence` on a machine
// with the repositories), no task file carries upstream code, and nanobench-v1 holds what we
// promise (tasks, repositories, languages, tiers, dates).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { evidenceStatus, GATE_IDS, readEvidence } from '../../src/task/evidence.js';
import { loadDataset } from '../../src/task/load.js';
import { loadManifest } from '../../src/task/manifest.js';
import { SHIPPED_DATASETS_DIR, shippedDatasets } from '../../src/task/registry.js';

describe.each(shippedDatasets())('shipped dataset %s', (name) => {
  const dir = join(SHIPPED_DATASETS_DIR, name);
  const tasks = loadDataset(dir);
  const active = tasks.filter((t) => t.task.status.state === 'active');

  it('every active task has passing gate evidence for its current digest', () => {
    const problems = active
      .map((t) => ({ id: t.task.task_id, status: evidenceStatus(t) }))
      .filter((p) => p.status !== 'passing')
      .map((p) => `${p.id}: ${p.status}`);
    expect(problems, 'run: nanobench validate DATASET --mirror DIR --record-evidence').toEqual([]);
    for (const t of active) {
      const e = readEvidence(dir, t.task.task_id)!;
      expect(e.gates.map((g) => g.gate)).toEqual([...GATE_IDS]);
    }
  });

  it('evidence names where a task came from by repository and commit, never a path of one machine', () => {
    for (const t of active) {
      const source = readEvidence(dir, t.task.task_id)!.gates.find(
        (g) => g.gate === 'reproducible',
      );
      const details = (source?.details ?? {}) as Record<string, unknown>;
      expect(details.repository, t.task.task_id).toBe(t.task.repo_url);
      expect(JSON.stringify(source), t.task.task_id).not.toMatch(/"\/(work|home|root|tmp)\//);
    }
  });

  it('task files hold references and facts, never upstream code', () => {
    for (const f of readdirSync(join(dir, 'tasks'))) {
      const text = readFileSync(join(dir, 'tasks', f), 'utf8');
      expect(text, f).not.toMatch(/diff --git|^@@ |\\n@@ /m);
      const raw = JSON.parse(text);
      expect(raw, f).not.toHaveProperty('ground_truth_patch');
      expect(raw, f).not.toHaveProperty('test_patch');
      expect(raw.patch_digests, f).toBeDefined();
    }
  });

  it('its manifest is current', () => {
    const m = loadManifest(dir)!;
    expect(m.tasks.map((t) => [t.task_id, t.digest])).toEqual(
      active.map((t) => [t.task.task_id, t.digest]).sort((a, b) => (a[0] < b[0] ? -1 : 1)),
    );
  });
});

describe('nanobench-v1 holds what it promises', () => {
  const dir = join(SHIPPED_DATASETS_DIR, 'nanobench-v1');
  const active = loadDataset(dir)
    .map((t) => t.task)
    .filter((t) => t.status.state === 'active');
  const cutoff = loadManifest(dir)!.cutoff!;

  it('>= 100 tasks from >= 35 repositories, none above 8%, merged after the 2025-01-01 cutoff', () => {
    expect(cutoff).toBe('2025-01-01T00:00:00Z');
    expect(active.length).toBeGreaterThanOrEqual(100);
    const perRepo = new Map<string, number>();
    for (const t of active) perRepo.set(t.repo, (perRepo.get(t.repo) ?? 0) + 1);
    expect(perRepo.size).toBeGreaterThanOrEqual(35);
    for (const [repo, n] of perRepo) expect(n, repo).toBeLessThanOrEqual(0.08 * active.length);
    for (const t of active)
      expect(Date.parse(t.merged_at), t.task_id).toBeGreaterThan(Date.parse(cutoff));
    expect(active.filter((t) => t.merged_at.startsWith('2026')).length).toBeGreaterThanOrEqual(40);
  });

  it('TypeScript, JavaScript and Python, at least 25 tasks each; bug fixes and features', () => {
    for (const lang of ['typescript', 'javascript', 'python'])
      expect(active.filter((t) => t.languages[0] === lang).length, lang).toBeGreaterThanOrEqual(25);
    expect(active.some((t) => t.task_type === 'bug_fix')).toBe(true);
    expect(active.some((t) => t.task_type === 'feature')).toBe(true);
  });

  it('tiers 1-3, and >= 45 tier 3-4 tasks that change two or more source files', () => {
    for (const tier of [1, 2, 3])
      expect(
        active.some((t) => t.complexity_tier === tier),
        `tier ${tier}`,
      ).toBe(true);
    const deep = active.filter((t) => t.complexity_tier >= 3 && t.required_files.length >= 2);
    expect(deep.length).toBeGreaterThanOrEqual(45);
  });

  it('tasks graded in two languages: two suites of different languages, fail_to_pass in both', () => {
    const twoLanguage = active.filter((t) => {
      const failing = new Set(t.fail_to_pass.map((id) => id.split('::')[0]));
      const langs = new Set(
        t.test_suites.filter((s) => failing.has(s.name)).map((s) => s.language),
      );
      return langs.size >= 2;
    });
    expect(twoLanguage.length).toBeGreaterThanOrEqual(4);
  });
});

describe('docs/DATASET.md', () => {
  it('lists every active task of nanobench-v1 in its table', () => {
    const doc = readFileSync(join(SHIPPED_DATASETS_DIR, '..', 'docs', 'DATASET.md'), 'utf8');
    const missing = loadDataset(join(SHIPPED_DATASETS_DIR, 'nanobench-v1'))
      .filter((t) => t.task.status.state === 'active')
      .map((t) => t.task.task_id)
      .filter((id) => !doc.includes(`| ${id} |`));
    expect(missing).toEqual([]);
  });
});
