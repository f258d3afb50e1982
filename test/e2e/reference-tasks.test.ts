// Issue 11: tasks of real repositories hold references and digests, never upstream code. Their
// patches are derived from the PR commit when the task is loaded, and refused when they differ
// from the recorded digests. Exercised through the CLI on the scripted fixture PR repository
// (test/fixtures/gates/), served from a local mirror as a real dataset would be.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildLedgerRepo } from '../fixtures/gates/build-pr-repo.mjs';
import { nanobench, type TrialJson, tempDir } from '../helpers/cli.js';

const root = tempDir('nb-reference-');
const mirror = join(root, 'mirror');
const ds = join(root, 'ds');
const file = join(ds, 'tasks', 'ledger-51.json');
const readTask = (f = file) => JSON.parse(readFileSync(f, 'utf8'));
const writeTask = (t: unknown, f = file) => writeFileSync(f, `${JSON.stringify(t, null, 2)}\n`);
const git = (cwd: string, args: string[]) =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  }).trim();

let prs: Record<string, string>;
let repoRoot: string;

function runJson(args: string[], cache: string) {
  const r = nanobench([
    'run',
    ...args,
    '--db',
    join(root, 'runs', 'results.sqlite'),
    '--cache-dir',
    cache,
    '--sandbox',
    'none',
    '--json',
  ]);
  return { ...r, trials: r.code === 0 ? (JSON.parse(r.stdout).trials as TrialJson[]) : [] };
}

beforeAll(() => {
  const built = buildLedgerRepo(root);
  prs = built.prs;
  repoRoot = built.root;
  mkdirSync(join(mirror, 'fixtures'), { recursive: true });
  git(root, ['clone', '-q', '--bare', built.root, join(mirror, 'fixtures/ledger.git')]);
  mkdirSync(join(ds, 'tasks'), { recursive: true });
  writeFileSync(
    join(ds, 'dataset.json'),
    JSON.stringify({
      name: 'reference-test',
      version: '0.1.0',
      cutoff: '2025-12-01T00:00:00Z',
      repos: { 'fixtures/ledger': { maintenance: 2, architecture: 2, note: 'test fixture' } },
    }),
  );
  const r = nanobench([
    'task',
    'import',
    '--repo',
    'fixtures/ledger',
    '--mirror',
    mirror,
    '--commit',
    prs.good,
    '--reference',
    '--pr',
    'https://example.invalid/fixtures/ledger/pull/51',
    '--name',
    'fixtures/ledger',
    '--id',
    'ledger-51',
    '--out',
    file,
    '--no-check',
  ]);
  if (r.code !== 0) throw new Error(r.stderr);
  writeTask({
    ...readTask(),
    repo_url: 'https://example.invalid/fixtures/ledger',
    domain: 'bookkeeping',
    complexity_tier: 1,
    reasoning_category: 'boundary-condition',
    problem_statement: 'round_half_up(-2.5) returns -2; halves should round away from zero (-3).',
    // Imported tasks enter calibrating; this one is run as a released task.
    status: { state: 'active' },
  });
});

describe('reference tasks', () => {
  it('import --reference writes facts and digests, no upstream code', () => {
    const text = readFileSync(file, 'utf8');
    const t = JSON.parse(text);
    expect(t).toMatchObject({
      pr_commit: prs.good,
      test_paths: ['tests/test_rounding.py'],
      required_files: ['ledger/core/rounding.py'],
    });
    expect(t.patch_digests.ground_truth_patch).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(t).not.toHaveProperty('ground_truth_patch');
    expect(t).not.toHaveProperty('test_patch');
    // Neither diff text nor a line of the fix or of the PR's test is in the file.
    expect(text).not.toMatch(/diff --git|@@ /);
    expect(text).not.toContain('sign = -1 if x < 0 else 1');
    expect(text).not.toContain('round_half_up(-2.5), -3');
  });

  it('validate derives the patches, records lists and evidence tied to the final digest', () => {
    const r = nanobench([
      'validate',
      file,
      '--mirror',
      mirror,
      '--cache-dir',
      join(root, 'cache'),
      '--write',
      '--record-evidence',
      '--json',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const v = JSON.parse(r.stdout).tasks[0];
    expect(v.admissible).toBe(true);
    const reproducible = v.gates.find((g: { gate: string }) => g.gate === 'reproducible');
    expect(reproducible.reason).toContain('patches derived and digests match');
    const controls = v.gates.find((g: { gate: string }) => g.gate === 'controls');
    expect(Object.keys(controls.details)).toEqual(['hinted', 'navigation']);
    expect(readTask().fail_to_pass.length).toBeGreaterThan(0);
    const evidence = JSON.parse(readFileSync(join(ds, 'evidence', 'ledger-51.json'), 'utf8'));
    expect(evidence).toMatchObject({
      task_id: 'ledger-51',
      admissible: true,
      task_digest: v.digest,
    });
    expect(evidence.gates.map((g: { gate: string }) => g.gate)).toContain('controls');
    // Issue #22: evidence ships with the dataset, so it names the source by what identifies it
    // anywhere (repository, commits, kind of copy), never by a path of the machine it ran on.
    const task = readTask();
    const recorded = evidence.gates.find((g: { gate: string }) => g.gate === 'reproducible');
    expect(recorded.details).toEqual({
      repository: task.repo_url,
      base_commit: task.base_commit,
      pr_commit: task.pr_commit,
      source_kind: 'mirror',
    });
    expect(recorded.reason).toContain(`provisioned from a mirror (--mirror) of ${task.repo_url}`);
    expect(JSON.stringify(evidence)).not.toContain(root);
    // The digest is the task's content after --write recorded the lists.
    const manifest = nanobench(['dataset', 'manifest', ds, '--json']);
    expect(JSON.parse(manifest.stdout).tasks[0].digest).toBe(evidence.task_digest);
  });

  it('runs from the mirror: oracle 1.0 and nop 0.0, and the report finds passing evidence', () => {
    const cache = join(root, 'cache-run');
    for (const [agent, score] of [
      ['oracle', 1],
      ['nop', 0],
    ] as const) {
      const r = runJson([ds, '--agent', agent, '--mode', 'both', '--mirror', mirror], cache);
      expect(r.code, r.stderr).toBe(0);
      expect(r.trials.map((t) => t.score)).toEqual([score, score]);
    }
    const report = nanobench(['report', '--db', join(root, 'runs', 'results.sqlite')]);
    expect(report.stdout).not.toContain('without passing gate evidence');
    // The stored configuration is versioned and says which NanoBench ran it.
    const db = new Database(join(root, 'runs', 'results.sqlite'), { readonly: true });
    const config = JSON.parse(
      (db.prepare('SELECT config FROM runs LIMIT 1').get() as { config: string }).config,
    );
    db.close();
    expect(config).toMatchObject({ config_version: 3, nanobench_version: expect.any(String) });
    expect(config.task_digests['ledger-51']).toMatch(/^sha256:/);
  });

  it('a changed digest is refused with one line naming the task, and no run is stored', () => {
    const t = readTask();
    const copy = join(root, 'tampered', 'tasks', 'ledger-51.json');
    mkdirSync(join(root, 'tampered', 'tasks'), { recursive: true });
    const d = t.patch_digests.ground_truth_patch as string;
    writeTask(
      {
        ...t,
        patch_digests: {
          ...t.patch_digests,
          ground_truth_patch: `${d.slice(0, -1)}${d.endsWith('0') ? '1' : '0'}`,
        },
      },
      copy,
    );
    const db = join(root, 'tampered', 'results.sqlite');
    const r = nanobench([
      'run',
      join(root, 'tampered'),
      '--agent',
      'oracle',
      '--mirror',
      mirror,
      '--db',
      db,
      '--cache-dir',
      join(root, 'cache'),
      '--sandbox',
      'none',
    ]);
    expect(r.code).not.toBe(0);
    const lines = r.stderr.trim().split('\n');
    expect(lines[lines.length - 1]).toMatch(/task ledger-51 .*ground_truth_patch.*digest/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(nanobench(['report', '--db', db]).code).not.toBe(0);
    const v = nanobench([
      'validate',
      copy,
      '--mirror',
      mirror,
      '--cache-dir',
      join(root, 'cache'),
      '--only',
      'reproducible',
      '--json',
    ]);
    const gate = JSON.parse(v.stdout).tasks[0].gates.find(
      (g: { gate: string }) => g.gate === 'reproducible',
    );
    expect(gate.status).toBe('fail');
    expect(gate.reason).toContain('digest');
  });

  it('a rewritten history (the PR commit is gone) is an error naming the task', () => {
    const rewritten = join(root, 'rewritten');
    mkdirSync(join(rewritten, 'fixtures'), { recursive: true });
    const bare = join(rewritten, 'fixtures/ledger.git');
    git(root, ['clone', '-q', '--bare', '--no-local', repoRoot, bare]);
    git(bare, ['branch', '-D', 'pr/good', 'pr/flaky']);
    git(bare, ['reflog', 'expire', '--expire=now', '--all']);
    git(bare, ['gc', '-q', '--prune=now']);
    expect(() => git(bare, ['cat-file', '-e', `${prs.good}^{commit}`])).toThrow();
    const r = runJson(
      [ds, '--agent', 'oracle', '--mirror', rewritten],
      join(root, 'cache-rewritten'),
    );
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`task ledger-51 (${file})`);
    expect(r.stderr).toContain(prs.good);
    expect(r.stderr).toMatch(/history was rewritten/);
  });

  it('a task without evidence for its current content is marked in the report', () => {
    const stale = join(root, 'stale');
    cpSync(ds, stale, { recursive: true });
    const f = join(stale, 'tasks', 'ledger-51.json');
    writeTask({ ...readTask(f), domain: 'money' }, f); // changed after validation
    const db = join(root, 'stale-runs', 'results.sqlite');
    const r = nanobench([
      'run',
      stale,
      '--agent',
      'nop',
      '--mirror',
      mirror,
      '--db',
      db,
      '--cache-dir',
      join(root, 'cache'),
      '--sandbox',
      'none',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Tasks without passing gate evidence');
    expect(r.stdout).toMatch(/ledger-51: changed since it was validated/);
    expect(r.stdout).toContain('task without passing gate evidence'); // the matrix mark
    rmSync(join(stale, 'evidence'), { recursive: true });
    const again = nanobench(['report', '--db', db]);
    expect(again.stdout).toMatch(/ledger-51: changed since it was validated/); // as recorded at run time
  });
});

describe('dataset fetch', () => {
  it('brings every repository into the cache from the mirror, then finds it cached', () => {
    const cache = join(root, 'cache-fetch');
    const first = nanobench([
      'dataset',
      'fetch',
      ds,
      '--mirror',
      mirror,
      '--cache-dir',
      cache,
      '--json',
    ]);
    expect(first.code, first.stderr).toBe(0);
    const out = JSON.parse(first.stdout);
    expect(out.ok).toBe(true);
    expect(out.repos).toMatchObject([
      {
        repo: 'fixtures/ledger',
        status: 'ok',
        cached: false,
        kind: 'mirror',
        tasks: ['ledger-51'],
      },
    ]);
    expect(first.stderr).toMatch(/\[1\/1\] fixtures\/ledger: ok .*commits present, patches match/);
    const second = nanobench([
      'dataset',
      'fetch',
      ds,
      '--mirror',
      mirror,
      '--cache-dir',
      cache,
      '--json',
    ]);
    expect(JSON.parse(second.stdout).repos[0].cached).toBe(true);
    // A run that follows needs no mirror: the clone and the derived patches are in the cache.
    const r = runJson([ds, '--agent', 'oracle'], cache);
    expect(r.code, r.stderr).toBe(0);
    expect(r.trials[0].score).toBe(1);
  });

  it('without network or mirror: one line naming the repository and --mirror, exit 1', () => {
    const r = nanobench(['dataset', 'fetch', ds, '--cache-dir', join(root, 'cache-none')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /fixtures\/ledger: FAILED: .*cannot fetch fixtures\/ledger from https:\/\/example\.invalid\/fixtures\/ledger .*--mirror DIR \(DIR\/fixtures\/ledger\.git\)/,
    );
    expect(r.stdout).toContain('0 of 1 repository ready; failed: fixtures/ledger');
    expect(existsSync(join(root, 'cache-none', 'sources'))).toBe(true);
    // No half-made clone is left to look finished.
    expect(
      execFileSync('ls', [join(root, 'cache-none', 'sources')], { encoding: 'utf8' }).trim(),
    ).toBe('');
  });

  it('an unknown dataset name lists the shipped datasets', () => {
    const r = nanobench(['dataset', 'fetch', 'no-such-dataset']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no such dataset directory or task file/);
  });
});

describe('task import of a merge commit', () => {
  it("takes the PR branch's author as contributor, not whoever merged it", () => {
    const clone = join(root, 'merge-work');
    git(root, ['clone', '-q', repoRoot, clone]);
    git(clone, ['checkout', '-q', 'main']);
    execFileSync(
      'git',
      ['merge', '-q', '--no-ff', 'origin/pr/good', '-m', 'Merge pull request #51'],
      {
        cwd: clone,
        env: {
          ...process.env,
          GIT_CONFIG_NOSYSTEM: '1',
          GIT_CONFIG_GLOBAL: '/dev/null',
          GIT_AUTHOR_NAME: 'Maint Ainer',
          GIT_AUTHOR_EMAIL: 'maint@ledger.invalid',
          GIT_COMMITTER_NAME: 'Maint Ainer',
          GIT_COMMITTER_EMAIL: 'maint@ledger.invalid',
        },
      },
    );
    const merge = git(clone, ['rev-parse', 'HEAD']);
    const r = nanobench([
      'task',
      'import',
      '--repo',
      clone,
      '--commit',
      merge,
      '--no-check',
      '--reference',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const t = JSON.parse(r.stdout);
    expect(t.contributor).toBe('Carla Rossi');
    expect(t.base_commit).toBe(git(clone, ['rev-parse', 'HEAD^1']));
    expect(t.test_paths).toEqual(['tests/test_rounding.py']);
  });
});

describe('a git server that never answers', () => {
  it('ends the clone within its time limit, naming the repository', async () => {
    const { createServer } = await import('node:net');
    const server = createServer((s) => s.on('data', () => {}));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const hung = join(root, 'hung');
      mkdirSync(join(hung, 'tasks'), { recursive: true });
      writeTask(
        { ...readTask(), repo_url: `http://127.0.0.1:${port}/fixtures/ledger.git` },
        join(hung, 'tasks', 'ledger-51.json'),
      );
      const t0 = Date.now();
      const r = nanobench(['dataset', 'fetch', hung, '--cache-dir', join(root, 'cache-hung')], {
        env: { NANOBENCH_CLONE_TIMEOUT_SEC: '3' },
      });
      expect(r.code).toBe(1);
      expect(Date.now() - t0).toBeLessThan(30_000);
      expect(r.stderr).toMatch(
        /cannot fetch fixtures\/ledger from http:\/\/127\.0\.0\.1:\d+\/fixtures\/ledger\.git \(no answer within 3s\)/,
      );
    } finally {
      server.close();
    }
  });
});
