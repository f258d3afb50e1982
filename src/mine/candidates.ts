// `task mine`, step 1: the merged pull requests of a repository's history, and the cheap triage
// that needs only git (which files changed). A PR is a commit on the first-parent line of the
// branch: a merge commit (its first parent is the base, its diff against it the PR), or a
// squash commit whose subject ends in "(#123)", as GitHub writes them.

import { isNeverAFix } from '../task/import.js';
import { isTestPath, languageOf } from '../task/test-paths.js';
import { git } from '../util/git.js';

export interface Candidate {
  /** The PR commit (the merge or the squash commit). */
  commit: string;
  /** Its first parent: the task's base_commit. */
  base: string;
  /** The PR number the subject names. */
  pr: number;
  kind: 'merge' | 'squash';
  subject: string;
  /** Committer date (ISO 8601): when it landed on the branch. */
  mergedAt: string;
}

export interface WalkOptions {
  /** Branch or commit whose history is walked (default HEAD). */
  ref?: string;
  /** Merged on or after (YYYY-MM-DD is midnight UTC). */
  since?: string;
  /** Merged before. */
  until?: string;
}

/** "(#123)" at the end of a squash commit's subject; "#123" anywhere in a merge commit's. */
const SQUASH_PR = /\(#(\d+)\)\s*$/;
const MERGE_PR = /#(\d+)\b/;
/** GitHub's own merge subject, also on a single-parent commit (a history rewritten linear). */
const GITHUB_MERGE = /^Merge pull request #(\d+)\b/;

/** A date (midnight UTC) or an ISO 8601 time, in milliseconds. */
function instant(s: string): number {
  return Date.parse(/^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : s);
}

/** The PR commits on the first-parent line of `ref`, newest first. */
export function walkCandidates(gitDir: string, o: WalkOptions = {}): Candidate[] {
  const args = [
    'log',
    '--first-parent',
    '-z',
    '--format=%H%x1f%P%x1f%cI%x1f%s',
    o.ref ?? 'HEAD',
    '--',
  ];
  // Dates are compared here, not by git: git reads "2026-02-01" as that day at the current time
  // of day, and stops walking at the first commit older than --since, whatever follows it.
  const since = o.since ? instant(o.since) : -Infinity;
  const until = o.until ? instant(o.until) : Infinity;
  const out: Candidate[] = [];
  for (const record of git(gitDir, args).split('\0')) {
    if (!record.trim()) continue;
    const [commit, parents, date, subject] = record.replace(/^\n/, '').split('\x1f');
    const ps = parents.split(' ').filter(Boolean);
    if (ps.length === 0) continue; // the root commit has no base
    const at = Date.parse(date);
    if (at < since || at >= until) continue;
    const merge = ps.length > 1;
    const m = merge
      ? (SQUASH_PR.exec(subject) ?? MERGE_PR.exec(subject))
      : (SQUASH_PR.exec(subject) ?? GITHUB_MERGE.exec(subject));
    // A direct push, or a merge of one branch into another ("Merge remote-tracking branch"): no PR.
    if (!m) continue;
    out.push({
      commit,
      base: ps[0],
      pr: Number(m[1]),
      kind: merge ? 'merge' : 'squash',
      subject,
      mergedAt: date,
    });
  }
  return out;
}

/** The changed paths of a candidate, and which of them it deletes (one git call per candidate). */
export function changedPaths(gitDir: string, c: Candidate): { paths: string[]; deleted: string[] } {
  const fields = git(gitDir, ['diff', '--name-status', '-z', '--no-renames', c.base, c.commit])
    .split('\0')
    .filter(Boolean);
  const paths: string[] = [];
  const deleted: string[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [status, path] = [fields[i], fields[i + 1]];
    if (isNeverAFix(path)) continue;
    paths.push(path);
    if (status === 'D') deleted.push(path);
  }
  return { paths, deleted };
}

export type TriageReason = 'docs_only' | 'too_large' | 'no_tests' | 'no_source';

export interface Triage {
  reason: TriageReason;
  detail: string;
}

export interface Limits {
  /** At most this many changed files (tests included; changelogs not counted). */
  maxFiles: number;
}

const DOC = /(^|\/)(docs?|documentation)\/|\.(md|mdx|rst|txt|adoc)$|(^|\/)(LICENSE|AUTHORS)[^/]*$/i;

/**
 * Why a candidate cannot become a task, seen from its changed paths alone, or undefined when it
 * is worth importing: it changes both source code and tests, within the size limit.
 */
export function triage(
  paths: string[],
  limits: Limits,
  deleted: string[] = [],
): Triage | undefined {
  if (paths.length === 0) return { reason: 'docs_only', detail: 'changes only release notes' };
  if (paths.every((p) => DOC.test(p) && !isTestPath(p)))
    return { reason: 'docs_only', detail: `changes only documentation (${paths.length} file(s))` };
  if (paths.length > limits.maxFiles)
    return {
      reason: 'too_large',
      detail: `changes ${paths.length} files (limit ${limits.maxFiles}: --max-files)`,
    };
  // A test the PR deletes grades nothing: only added and changed tests count.
  const tests = paths.filter((p) => isTestPath(p) && !deleted.includes(p));
  const code = paths.filter((p) => !isTestPath(p) && languageOf(p) !== undefined);
  if (tests.length === 0 && code.length === 0)
    return {
      reason: 'no_source',
      detail: `changes neither source code nor tests (${paths.slice(0, 3).join(', ')}${paths.length > 3 ? ', ...' : ''})`,
    };
  if (tests.length === 0)
    return {
      reason: 'no_tests',
      detail: `${deleted.some(isTestPath) ? 'only deletes test files' : 'changes no test file'} (${code.length} source file(s)): nothing would grade a fix`,
    };
  if (code.length === 0)
    return {
      reason: 'no_source',
      detail: `changes ${tests.length} test file(s) and no source code: there is no fix to ask for`,
    };
  return undefined;
}
