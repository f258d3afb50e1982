// `nanobench task mine`: the merged PRs of a repository's history, each triaged from its changed
// paths, the rest imported as reference tasks and judged by the automatic admission gates. One
// row per candidate: admitted (with its test counts and timings) or rejected with one reason.
// Resumable (state.ts); writes tasks only into the dataset named by --out.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InfraError } from '../util/errors.js';
import { tryGit } from '../util/git.js';
import { unmountUnder } from '../workspace/layers.js';
import { type Candidate, changedPaths, triage, walkCandidates } from './candidates.js';
import { judgeCandidate, type RejectReason } from './judge.js';
import { type MineRow, MineState } from './state.js';

export interface MineOptions {
  gitDir: string;
  /** The repository as the user named it (for messages and repo_url). */
  location: string;
  /** owner/name: from --name, else the repository's origin, else its path. */
  repo: string;
  /** https://github.com/owner/name when the PRs are GitHub's (--name, or a GitHub origin). */
  prBase?: string;
  ref?: string;
  since?: string;
  until?: string;
  /** At most this many candidates (newest first). */
  limit?: number;
  maxFiles: number;
  narrow: boolean;
  verifierSec?: number;
  cacheDir: string;
  stateFile: string;
  /** Dataset directory the admitted tasks are written to (tasks/<task_id>.json). */
  out?: string;
  log: (line: string) => void;
  /** Called with each row as soon as it is decided. */
  onRow?: (row: MineRow) => void;
}

export interface MineResult {
  repo: string;
  /** PR commits found in the range, before --limit. */
  found: number;
  rows: MineRow[];
  admitted: number;
  rejected: Partial<Record<RejectReason, number>>;
  state: string;
}

/** The options a verdict depends on: a verdict reached with others is decided again. */
function fingerprint(o: MineOptions): string {
  return JSON.stringify({
    maxFiles: o.maxFiles,
    narrow: o.narrow,
    verifierSec: o.verifierSec ?? null,
  });
}

function writeTask(out: string, row: MineRow): string {
  const task = row.task!;
  const file = join(out, 'tasks', `${String(task.task_id)}.json`);
  if (existsSync(file)) return `${file} exists (kept)`;
  mkdirSync(join(out, 'tasks'), { recursive: true });
  writeFileSync(file, `${JSON.stringify(task, null, 2)}\n`);
  return file;
}

async function decide(
  o: MineOptions,
  c: Candidate,
  workDir: string,
): Promise<Omit<MineRow, 'commit' | 'pr' | 'kind' | 'subject' | 'merged_at'>> {
  const { paths, deleted } = changedPaths(o.gitDir, c);
  const early = triage(paths, { maxFiles: o.maxFiles }, deleted);
  if (early)
    return { status: 'rejected', reason: early.reason, detail: early.detail, files: paths.length };
  const v = await judgeCandidate(o.gitDir, o.location, c, {
    cacheDir: o.cacheDir,
    workDir,
    repo: o.repo,
    prBase: o.prBase,
    narrow: o.narrow,
    verifierSec: o.verifierSec,
    log: o.log,
  });
  return {
    status: v.admitted ? 'admitted' : 'rejected',
    ...(v.reason && { reason: v.reason }),
    detail: v.detail,
    ...(v.task_id && { task_id: v.task_id }),
    files: paths.length,
    ...(v.fail_to_pass !== undefined && {
      fail_to_pass: v.fail_to_pass,
      pass_to_pass: v.pass_to_pass,
    }),
    ...(v.timings && { timings: v.timings }),
    ...(v.task && { task: v.task }),
  };
}

export async function mine(o: MineOptions): Promise<MineResult> {
  const all = walkCandidates(o.gitDir, { ref: o.ref, since: o.since, until: o.until });
  const candidates = o.limit !== undefined ? all.slice(0, o.limit) : all;
  const state = MineState.open(o.stateFile, o.repo);
  const options = fingerprint(o);
  const rows: MineRow[] = [];
  const workDir = mkdtempSync(join(tmpdir(), 'nanobench-mine-'));
  try {
    for (const [i, c] of candidates.entries()) {
      const what = `[${i + 1}/${candidates.length}] ${c.pr !== undefined ? `#${c.pr} ` : ''}${c.commit.slice(0, 10)}`;
      const head = {
        commit: c.commit,
        ...(c.pr !== undefined && { pr: c.pr }),
        kind: c.kind,
        subject: c.subject,
        merged_at: c.mergedAt,
      };
      let row: MineRow;
      const kept = state.get(c.commit, options);
      if (kept) {
        row = { ...kept, resumed: true };
        o.log(`${what}: decided earlier (${row.status}${row.reason ? `: ${row.reason}` : ''})`);
      } else {
        o.log(`${what}: ${c.subject}`);
        const started = Date.now();
        try {
          row = { ...head, ...(await decide(o, c, workDir)) };
        } catch (e) {
          // git or the machine failed on this candidate: say so and go on with the next.
          if (!(e instanceof InfraError)) throw e;
          row = { ...head, status: 'rejected', reason: 'error', detail: e.message, files: 0 };
        } finally {
          unmountUnder(workDir); // the candidate's workspaces (overlays), done with
          rmSync(join(workDir, 'gates'), { recursive: true, force: true });
        }
        // An error is not a verdict on the PR (a glitch of this machine): judged again next time.
        if (row.reason !== 'error') state.put(c.commit, options, row);
        o.log(`${what}: ${row.status} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
      }
      if (o.out && row.status === 'admitted' && row.task) row.written = writeTask(o.out, row);
      rows.push(row);
      o.onRow?.(row);
    }
  } finally {
    unmountUnder(workDir);
    rmSync(workDir, { recursive: true, force: true });
  }
  const rejected: Partial<Record<RejectReason, number>> = {};
  for (const r of rows) if (r.reason) rejected[r.reason] = (rejected[r.reason] ?? 0) + 1;
  return {
    repo: o.repo,
    found: all.length,
    rows,
    admitted: rows.filter((r) => r.status === 'admitted').length,
    rejected,
    state: o.stateFile,
  };
}

/** owner/name of a repository from its origin URL, when it has one on GitHub. */
export function githubName(gitDir: string): string | undefined {
  const url = tryGit(gitDir, ['config', '--get', 'remote.origin.url'])?.trim() ?? '';
  return /github\.com[/:]([^/\s]+\/[^/\s]+?)(\.git)?\/?$/.exec(url)?.[1];
}
