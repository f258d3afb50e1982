// `task import`: a task from a merged PR's commit (squash or merge commit). The commit's first
// parent is base_commit; its diff against that parent is split into the golden patch (non-test
// files) and test_patch (test files, src/task/test-paths.ts). What only a person can judge is left
// as TODO(curator) placeholders, which every loader rejects until they are filled in.
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { UserError } from '../util/errors.js';
import { git, tryGit } from '../util/git.js';
import { guessSuites } from './guess-suites.js';
import { inMirror } from './mirror.js';
import { diffPaths, patchDigest } from './patches.js';
import { placeholder } from './placeholders.js';
import { isTestPath, languageOf, languagesOf } from './test-paths.js';

/**
 * Paths that never belong to a fix: changelogs and changeset entries, and the instructions a
 * repository keeps for coding agents (AGENTS.md, CLAUDE.md, .cursor/ rules), which a PR may
 * touch in passing and which would tell the agent under test about the change.
 */
export function isNeverAFix(path: string): boolean {
  if (/^(AGENTS|CLAUDE|GEMINI)\.md$|^\.(cursor|claude|windsurf)\//i.test(path)) return true;
  return isReleaseNote(path);
}

/** Release notes: changelogs and changeset entries. */
function isReleaseNote(path: string): boolean {
  const name = path.split('/').pop() ?? '';
  return (
    /^(CHANGELOG|CHANGES|HISTORY|NEWS|RELEASE[-_]NOTES)(\.[a-z]+)?$/i.test(name) ||
    /^\.changeset\/.+\.md$/.test(path)
  );
}

export interface ImportOptions {
  /** Local repository (bare or not), git bundle, URL, or owner/name with `mirror`. */
  repo: string;
  commit: string;
  pr?: string;
  id?: string;
  /** Repository name (owner/name) when it cannot be inferred. */
  name?: string;
  mirror?: string;
  /**
   * Write a reference task (pr_commit, test_paths, patch digests) instead of inline patches:
   * the form of tasks from real repositories, whose code never enters the dataset.
   */
  reference?: boolean;
  /** Changed paths that go into neither patch (docs, changelog, generated files). */
  exclude?: string[];
  /** Point each guessed suite at the PR's test files instead of the whole suite. */
  narrow?: boolean;
}

export interface ImportResult {
  task: Record<string, unknown>;
  /** What was guessed and what the curator still has to fill in. */
  notes: string[];
}

/** The same diff options as the example fixtures' build, so patches are byte-identical. */
const DIFF = [
  'diff',
  '--no-color',
  '--no-ext-diff',
  '--no-renames',
  '--binary',
  '--diff-algorithm=myers',
  '--src-prefix=a/',
  '--dst-prefix=b/',
];

const isUrl = (s: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(s) || /^[^/\s]+@[^:\s]+:/.test(s);

/** A git directory to read from; bundles and URLs are cloned (bare) into a temp dir first. */
export function openRepo(o: ImportOptions): {
  gitDir: string;
  location: string;
  cleanup: () => void;
} {
  let location = o.repo;
  if (o.mirror && !existsSync(o.repo)) {
    const hit = inMirror(resolve(o.mirror), o.repo);
    if (!hit) throw new UserError('NOT_IN_MIRROR', `${o.mirror}: no ${o.repo}(.git|.bundle) in it`);
    location = hit;
  }
  if (!isUrl(location) && !existsSync(location))
    throw new UserError(
      'REPO_NOT_FOUND',
      `--repo ${o.repo}: no such path or URL (for owner/name, add --mirror DIR)`,
    );
  if (!isUrl(location) && statSync(location).isDirectory()) {
    if (tryGit(location, ['rev-parse', '--git-dir']) === undefined)
      throw new UserError('NOT_A_REPO', `${location}: not a git repository`);
    return { gitDir: resolve(location), location: resolve(location), cleanup: () => {} };
  }
  const tmp = mkdtempSync(join(tmpdir(), 'nanobench-import-'));
  const src = isUrl(location) ? location : resolve(location);
  git(tmp, ['clone', '--bare', '--quiet', src, 'repo.git']);
  return {
    gitDir: join(tmp, 'repo.git'),
    location: src,
    cleanup: () => rmSync(tmp, { recursive: true, force: true }),
  };
}

function normaliseUrl(url: string): string {
  const ssh = /^[^@\s]+@([^:\s]+):(.+)$/.exec(url);
  const https = ssh ? `https://${ssh[1]}/${ssh[2]}` : url;
  return https.replace(/\.git$/, '').replace(/\/$/, '');
}

/** The repository's owner/name, URL and PR number, from the options, its origin or its path. */
export function identity(o: ImportOptions, gitDir: string, location: string) {
  const pr = o.pr ? /github\.com\/([^/]+)\/([^/]+)\/pull\/(\d+)/.exec(o.pr) : null;
  const origin = tryGit(gitDir, ['config', '--get', 'remote.origin.url'])?.trim();
  const url = pr
    ? `https://github.com/${pr[1]}/${pr[2]}`
    : isUrl(location)
      ? normaliseUrl(location)
      : origin && isUrl(origin)
        ? normaliseUrl(origin)
        : location;
  const lastTwo = url
    .replace(/\.(git|bundle)$/, '')
    .split(/[/:]/)
    .filter(Boolean)
    .slice(-2)
    .join('/');
  const repo =
    o.name ?? (/^[^/\s]+\/[^/\s]+$/.test(o.repo) && !existsSync(o.repo) ? o.repo : lastTwo);
  return { repo, repo_url: url, prNumber: pr?.[3] };
}

/** The issue a commit message says it fixes: "fixes #12", "Resolves #12.", "fix: #12 ...". */
export function issueNumber(message: string): string | undefined {
  return /\b(?:fix(?:es|ed)?|close[sd]?|resolve[sd]?)\s*:?\s+#(\d+)/i.exec(message)?.[1];
}

/** Conventional-commit prefixes; anything else is left to the curator. */
function taskTypeOf(subject: string): string | undefined {
  const m = /^(\w+)(\([^)]*\))?!?:/.exec(subject);
  const types: Record<string, string> = {
    fix: 'bug_fix',
    bugfix: 'bug_fix',
    hotfix: 'bug_fix',
    feat: 'feature',
    feature: 'feature',
    refactor: 'refactor',
    perf: 'performance',
  };
  return m ? types[m[1].toLowerCase()] : undefined;
}

export function importTask(o: ImportOptions): ImportResult {
  const { gitDir, location, cleanup } = openRepo(o);
  try {
    return importFrom(gitDir, location, o);
  } finally {
    cleanup();
  }
}

/** The task for `o.commit` from an open git directory (see openRepo). */
export function importFrom(gitDir: string, location: string, o: ImportOptions): ImportResult {
  const sha = tryGit(gitDir, ['rev-parse', '--verify', '--quiet', `${o.commit}^{commit}`])?.trim();
  if (!sha) throw new UserError('NO_COMMIT', `${location}: no commit ${o.commit}`);
  const parents = git(gitDir, ['rev-list', '--parents', '-n', '1', sha]).trim().split(' ');
  if (parents.length < 2)
    throw new UserError('NO_PARENT', `${sha} has no parent: a PR commit needs a base`);
  const base = parents[1];
  const show = (fmt: string) => git(gitDir, ['show', '-s', `--format=${fmt}`, sha]);
  const message = show('%B').trim();
  const subject = message.split('\n')[0];
  const changed = git(gitDir, ['diff', '--name-only', '-z', '--no-renames', base, sha])
    .split('\0')
    .filter(Boolean);
  const excluded = [...new Set([...(o.exclude ?? []), ...changed.filter(isNeverAFix)])];
  const notChanged = (o.exclude ?? []).filter((p) => !changed.includes(p));
  if (notChanged.length)
    throw new UserError(
      'BAD_OPTION',
      `--exclude: ${notChanged.join(', ')} not changed by ${sha.slice(0, 12)} (it changes: ${changed.join(', ')})`,
    );
  const kept = changed.filter((p) => !excluded.includes(p));
  const tests = kept.filter(isTestPath);
  const sources = kept.filter((p) => !isTestPath(p));
  if (sources.length === 0)
    throw new UserError(
      'NO_SOURCE_CHANGE',
      `${sha}: the commit changes only test files (${tests.join(', ')}); there is no fix to ask for`,
    );
  const diff = (paths: string[]) =>
    paths.length
      ? git(gitDir, [...DIFF, base, sha, '--', ...paths.map((p) => `:(literal)${p}`)])
      : '';
  const files = new Set(
    git(gitDir, ['ls-tree', '-r', '--name-only', '-z', sha]).split('\0').filter(Boolean),
  );
  const read = (p: string) => (files.has(p) ? tryGit(gitDir, ['show', `${sha}:${p}`]) : undefined);
  const chars = changed.reduce((n, p) => n + (read(p)?.length ?? 0), 0);
  const guess = guessSuites({ files, read }, tests, { narrow: o.narrow });
  const id = identity(o, gitDir, location);
  const name = id.repo.split('/').pop() ?? 'task';
  const taskId = (o.id ?? `${name}-${id.prNumber ?? sha.slice(0, 7)}`).replace(
    /[^A-Za-z0-9._-]+/g,
    '-',
  );
  const issue = issueNumber(message);
  const type = taskTypeOf(subject);
  const notes = [...guess.notes];
  if (!type) notes.push('task_type: the commit subject has no conventional prefix; fill it in');
  const task: Record<string, unknown> = {
    schema_version: 1,
    task_id: taskId,
    repo: id.repo,
    repo_url: id.repo_url,
    issue_url:
      issue && id.repo_url.startsWith('https://github.com/')
        ? `${id.repo_url}/issues/${issue}`
        : null,
    pr_url: o.pr ?? null,
    base_commit: base,
    languages: languagesOf(changed),
    domain: placeholder('the domain of the code, e.g. "billing" or "terminal UI"'),
    complexity_tier: placeholder(
      'a number 1-4: 1 local logic, 2 one module, 3 several modules, 4 cross-system or cross-language',
    ),
    task_type: type ?? placeholder('bug_fix, feature, refactor, performance or other'),
    reasoning_category: placeholder('what kind of reasoning the fix needs, e.g. "api-design"'),
    token_estimate: Math.ceil(chars / 4),
    problem_statement: placeholder(
      `the problem as a user would report it (symptom, expected behaviour), without the solution. The commit says: ${message}`,
    ),
    required_files: sources,
    ...(o.reference
      ? {
          pr_commit: sha,
          test_paths: tests,
          ...(excluded.length ? { excluded_paths: excluded } : {}),
          patch_digests: {
            ground_truth_patch: patchDigest(diffPaths(gitDir, base, sha, sources)),
            test_patch: patchDigest(diffPaths(gitDir, base, sha, tests)),
          },
        }
      : { ground_truth_patch: diff(sources), test_patch: diff(tests) }),
    test_command:
      guess.suites
        .map((s) => (s.command.startsWith('cd ') ? `(${s.command})` : s.command))
        .join(' && ') || placeholder('the test command'),
    test_suites: guess.suites.length
      ? guess.suites
      : [
          {
            name: 'js',
            language: placeholder('language'),
            command: placeholder('command'),
            format: placeholder('result format'),
            test_files: [],
          },
        ],
    fail_to_pass: [],
    pass_to_pass: [],
    install_command: guess.install_command,
    timeouts: { agent_sec: 900, verifier_sec: 300 },
    // A merge commit's author is whoever merged; the PR's author wrote its second parent.
    contributor:
      (parents.length > 2
        ? git(gitDir, ['show', '-s', '--format=%an', parents[2]])
        : show('%an')
      ).trim() || placeholder('the PR author'),
    merged_at: new Date(show('%cI').trim()).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    // A new task is observed before it counts: nanobench task activate, after calibration.
    status: { state: 'calibrating' },
  };
  notes.push(
    `golden patch: ${sources.length} file(s); test_patch: ${tests.length} file(s)${tests.length ? '' : ' (none: the verifier can only use tests already at base)'}${excluded.length ? `; excluded: ${excluded.join(', ')}` : ''}`,
  );
  const prose = sources.filter((p) => languageOf(p) === undefined);
  if (prose.length)
    notes.push(
      `not code, yet in the golden patch and required_files: ${prose.join(', ')}; if the agent need not change them, re-import with --exclude`,
    );
  if (o.reference)
    notes.push(
      'reference task: no patch text is written; the patches are derived from pr_commit when the task is loaded and checked against patch_digests',
    );
  return { task, notes };
}

/** A hand-written task's skeleton (`task new`): every field to fill is a placeholder. */
export function scaffoldTask(taskId: string): Record<string, unknown> {
  const todo = placeholder;
  return {
    schema_version: 1,
    task_id: taskId,
    repo: todo('owner/name'),
    repo_url: todo('where to clone it from (URL or path)'),
    issue_url: null,
    pr_url: todo('the merged PR, or null'),
    base_commit: todo("the full SHA of the PR commit's first parent"),
    languages: [todo('e.g. javascript')],
    domain: todo('the domain of the code'),
    complexity_tier: todo('a number 1-4'),
    task_type: todo('bug_fix, feature, refactor, performance or other'),
    reasoning_category: todo('what kind of reasoning the fix needs'),
    token_estimate: 0,
    problem_statement: todo('the problem as a user would report it, without the solution'),
    required_files: [todo('each non-test file the PR changes')],
    ground_truth_patch: todo('git diff BASE PR -- <non-test files>'),
    test_patch: todo('git diff BASE PR -- <test files> (empty string if none)'),
    test_command: todo('the whole test command'),
    test_suites: [
      {
        name: 'js',
        language: todo('javascript, typescript or python'),
        command: todo('e.g. node --test --test-reporter=tap test/*.test.js'),
        format: todo(
          'node-tap, node-spec, tap, jest-json, vitest-json, junit-xml, unittest or exit-code',
        ),
        test_files: [todo('e.g. test/')],
      },
    ],
    fail_to_pass: [],
    pass_to_pass: [],
    install_command: null,
    timeouts: { agent_sec: 900, verifier_sec: 300 },
    contributor: todo('the PR author'),
    merged_at: todo("the PR commit's committer date, e.g. 2026-01-15T00:00:00Z"),
    status: { state: 'calibrating' },
  };
}
