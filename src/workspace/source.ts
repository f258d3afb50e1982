// Where a task's repository comes from, and NanoBench's private clone of it. Local copies win
// over the network, in this order: --mirror DIR, the dataset's own mirror/ directory, a local
// repo_url; a remote URL last. The clone is bare, holds the whole history (PR commits included)
// and is never shown to an agent.
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { LoadedTask } from '../task/load.js';
import { inMirror } from '../task/mirror.js';
import { InfraError } from '../util/errors.js';
import { GIT_ENV, tryGit } from '../util/git.js';
import { run } from '../util/process.js';

export interface RepoSource {
  /** Path or URL git can fetch from. */
  location: string;
  kind: 'mirror' | 'dataset-mirror' | 'local' | 'remote';
}

export function resolveSource(lt: LoadedTask, mirrorDir?: string): RepoSource {
  const { repo, repo_url } = lt.task;
  if (mirrorDir) {
    const hit = inMirror(resolve(mirrorDir), repo);
    if (hit) return { location: hit, kind: 'mirror' };
  }
  // An archived version (DATASET/archive/V) uses its dataset's mirror.
  const archived = basename(dirname(lt.datasetDir)) === 'archive';
  for (const d of [lt.datasetDir, ...(archived ? [dirname(dirname(lt.datasetDir))] : [])]) {
    const own = inMirror(join(d, 'mirror'), repo);
    if (own) return { location: own, kind: 'dataset-mirror' };
  }
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(repo_url) && !repo_url.startsWith('git@')) {
    const p = isAbsolute(repo_url) ? repo_url : resolve(lt.file, '..', repo_url);
    if (existsSync(p)) return { location: p, kind: 'local' };
  }
  return { location: repo_url, kind: 'remote' };
}

/**
 * How long a clone or fetch may take. A server that accepts the connection and then sends
 * nothing is cut off by git's low-speed limit (under 1 KB/s for a minute); the overall limit
 * bounds everything else. NANOBENCH_CLONE_TIMEOUT_SEC overrides it (large repositories, slow links).
 */
export function cloneTimeoutMs(): number {
  const sec = Number(process.env.NANOBENCH_CLONE_TIMEOUT_SEC);
  return (Number.isFinite(sec) && sec > 0 ? sec : 1800) * 1000;
}

const STALL_ENV = { GIT_HTTP_LOW_SPEED_LIMIT: '1000', GIT_HTTP_LOW_SPEED_TIME: '60' };

export interface SourceCloneOptions {
  /** Commits the clone must hold (base_commit, pr_commit). */
  commits: string[];
  /** Says what is being cloned, for progress on stderr. */
  log?: (line: string) => void;
  signal?: AbortSignal;
}

const slug = (repo: string) => repo.replace(/[^A-Za-z0-9._-]+/g, '_');

/**
 * Where the clone of `repo` lives in the cache. One per repository, wherever it came from: after
 * `dataset fetch` (or a run with --mirror) later runs find it without the mirror or the network.
 * Commits are what matter, and they are checked on every use, so a clone filled from two
 * sources is as good as one.
 */
export function sourceClonePath(cacheDir: string, repo: string): string {
  return join(cacheDir, 'sources', `${slug(repo)}.git`);
}

async function gitBounded(cwd: string, args: string[], signal?: AbortSignal) {
  return run('git', args, {
    cwd,
    env: { ...GIT_ENV, ...STALL_ENV },
    timeoutMs: cloneTimeoutMs(),
    signal,
  });
}

function unreachable(repo: string, source: RepoSource, why: string): InfraError {
  const hint =
    source.kind === 'remote'
      ? `bring a copy of the repository and pass --mirror DIR (DIR/${repo}.git), or run "nanobench dataset fetch" where ${source.location} is reachable`
      : `check that ${source.location} is a git repository (bare, bundle or checkout) of ${repo}`;
  return new InfraError('source', `cannot fetch ${repo} from ${source.location} (${why}); ${hint}`);
}

const lastLine = (s: string) => s.trim().split('\n').pop() ?? '';
const missing = (dir: string, commits: string[]) =>
  commits.filter((c) => tryGit(dir, ['cat-file', '-e', `${c}^{commit}`]) === undefined);

/**
 * The source clones hold the PR's own commits (the fix): readable by NanoBench's user only, in
 * every sandbox mode (an unsandboxed agent running as another user cannot search them).
 */
function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    if ((statSync(dir).mode & 0o077) !== 0) chmodSync(dir, 0o700);
  } catch {
    // not ours (a cache shared with another user): leave it as its owner made it
  }
}

/**
 * A bare full clone of the source in the cache, holding every commit asked for. Built in a temp
 * directory and renamed into place, so an interrupted clone leaves nothing that looks finished
 * and the next call starts over; an existing clone that lacks a commit is refreshed once.
 */
/** Clones and the commits this process already found in them (every trial asks again). */
const verified = new Set<string>();

export async function ensureSourceClone(
  cacheDir: string,
  repo: string,
  source: RepoSource,
  o: SourceCloneOptions,
): Promise<string> {
  const dir = sourceClonePath(cacheDir, repo);
  privateDir(join(cacheDir, 'sources'));
  if (!existsSync(dir)) {
    const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
    o.log?.(`cloning ${repo} from ${source.location}`);
    try {
      const r = await gitBounded(
        cacheDir,
        ['clone', '--bare', '--quiet', source.location, tmp],
        o.signal,
      );
      if (r.timedOut)
        throw unreachable(repo, source, `no answer within ${cloneTimeoutMs() / 1000}s`);
      if (o.signal?.aborted) throw new InfraError('interrupted', `clone of ${repo} interrupted`);
      if (r.exitCode !== 0) throw unreachable(repo, source, lastLine(r.stderr));
      try {
        renameSync(tmp, dir);
      } catch {
        // another process won the race; its clone is as good as ours
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  }
  const key = `${dir}\n${o.commits.join(' ')}`;
  if (verified.has(key) && existsSync(dir)) return dir; // a clone only grows: checked once
  if (missing(dir, o.commits).length > 0) {
    // The clone may predate the commits: refresh it once from its source.
    o.log?.(`updating the clone of ${repo} from ${source.location}`);
    const r = await gitBounded(
      dir,
      ['fetch', '--quiet', source.location, '+refs/*:refs/*'],
      o.signal,
    );
    if (o.signal?.aborted) throw new InfraError('interrupted', `fetch of ${repo} interrupted`);
    const still = missing(dir, o.commits);
    if (still.length)
      throw new InfraError(
        'source',
        r.exitCode !== 0 || r.timedOut
          ? `${repo}: commit(s) ${still.map((c) => c.slice(0, 12)).join(', ')} not in the cached clone, and ${source.location} could not be fetched (${r.timedOut ? 'timed out' : lastLine(r.stderr)})`
          : `${repo}: commit(s) ${still.join(', ')} are not in ${source.location}: its history was rewritten, or it is another repository`,
      );
  }
  verified.add(key);
  return dir;
}
