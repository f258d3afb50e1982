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
  /** The PR number the subject names, when it names one. */
  pr?: number;
  kind: 'merge' | 'squash';
  subject: string;
  /** Committer date (ISO 8601): when it landed on the branch. */
  mergedAt: string;
  /** Changed paths, first parent to the commit, without the ones no fix includes (changelogs). */
  paths: string[];
}

export interface WalkOptions {
  /** Branch or commit whose history is walked (default HEAD). */
  ref?: string;
  since?: string;
  until?: string;
}

/** "(#123)" at the end of a squash commit's subject; "#123" anywhere in a merge commit's. */
const SQUASH_PR = /\(#(\d+)\)\s*$/;
const MERGE_PR = /#(\d+)\b/;

/** The PR commits on the first-parent line of `ref`, newest first. */
export function walkCandidates(gitDir: string, o: WalkOptions = {}): Candidate[] {
  const args = ['log', '--first-parent', '-z', '--format=%H%x1f%P%x1f%cI%x1f%s'];
  if (o.since) args.push(`--since=${o.since}`);
  if (o.until) args.push(`--until=${o.until}`);
  args.push(o.ref ?? 'HEAD', '--');
  const out: Candidate[] = [];
  for (const record of git(gitDir, args).split('\0')) {
    if (!record.trim()) continue;
    const [commit, parents, date, subject] = record.replace(/^\n/, '').split('\x1f');
    const ps = parents.split(' ').filter(Boolean);
    if (ps.length === 0) continue; // the root commit has no base
    const merge = ps.length > 1;
    const m = merge ? (SQUASH_PR.exec(subject) ?? MERGE_PR.exec(subject)) : SQUASH_PR.exec(subject);
    if (!m && !merge) continue; // a direct push, not a PR
    out.push({
      commit,
      base: ps[0],
      ...(m && { pr: Number(m[1]) }),
      kind: merge ? 'merge' : 'squash',
      subject,
      mergedAt: date,
      paths: [],
    });
  }
  return out;
}

/** The changed paths of a candidate (filled lazily: one git call per candidate judged). */
export function changedPaths(gitDir: string, c: Candidate): string[] {
  return git(gitDir, ['diff', '--name-only', '-z', '--no-renames', c.base, c.commit])
    .split('\0')
    .filter(Boolean)
    .filter((p) => !isNeverAFix(p));
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
export function triage(paths: string[], limits: Limits): Triage | undefined {
  if (paths.length === 0) return { reason: 'docs_only', detail: 'changes only release notes' };
  if (paths.every((p) => DOC.test(p) && !isTestPath(p)))
    return { reason: 'docs_only', detail: `changes only documentation (${paths.length} file(s))` };
  if (paths.length > limits.maxFiles)
    return {
      reason: 'too_large',
      detail: `changes ${paths.length} files (limit ${limits.maxFiles}: --max-files)`,
    };
  const tests = paths.filter(isTestPath);
  const code = paths.filter((p) => !isTestPath(p) && languageOf(p) !== undefined);
  if (tests.length === 0)
    return {
      reason: 'no_tests',
      detail: `changes no test file (${code.length} source file(s)): nothing would grade a fix`,
    };
  if (code.length === 0)
    return {
      reason: 'no_source',
      detail: `changes ${tests.length} test file(s) and no source code: there is no fix to ask for`,
    };
  return undefined;
}
