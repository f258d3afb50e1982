// Workspace provisioning. A trial gets a fresh workspace made from a prepared environment snapshot
// (an overlay on it, or a copy: layers.ts):
// the repository at base_commit (history up to base only: nothing that reaches past it),
// with the task's install command already run. Snapshots are built once per
// (repo, base_commit, install command) and reused by every later trial.

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Task } from '../task/schema.js';
import { InfraError } from '../util/errors.js';
import { GIT_ENV, git } from '../util/git.js';
import type { RunResult } from '../util/process.js';
import { RUN_ID_VAR, runProcessGroup } from '../util/process-group.js';
import { stillRunning } from '../util/still-running.js';
import { type ChangedPaths, upperChanges } from './changes.js';
import { type Layers, lowerOwnedBy, makeWorkspace, type ProvisionMode } from './layers.js';
import { detectContainment } from './sandbox/contain.js';
import { ensureSourceClone, type RepoSource } from './source.js';

export interface Snapshot {
  dir: string;
  /** Tree of the workspace after install: the baseline the agent's changes are diffed against. */
  baselineTree: string;
  installRan: boolean;
  /** Why the workspace holds base_commit without its history, when it does. */
  shallow?: string;
}

export interface ProvisionResult {
  workspace: string;
  baselineTree: string;
  /** True when the environment snapshot already existed (install not re-run). */
  envReused: boolean;
  /** The pristine workspace the trial's workspace was made from (hardening compares against it). */
  snapshotWs: string;
  /** NanoBench's private clone of the repository (all history; never shown to an agent). */
  sourceClone: string;
  /** How the workspace was made: overlay (and its upper layer) or a copy. */
  layers?: Layers;
  /** Milliseconds spent making the workspace (the snapshot already existed or was built first). */
  provisionMs?: number;
  /**
   * Paths that may differ from snapshotWs now (from the overlay's upper layer); absent for
   * copies, whose every file has to be looked at.
   */
  changes?: () => ChangedPaths;
}

const hash = (s: string) => createHash('sha256').update(s).digest('hex').slice(0, 16);
const slug = (repo: string) => repo.replace(/[^A-Za-z0-9._-]+/g, '_');
const tmpName = (p: string) => `${p}.tmp-${process.pid}-${Date.now()}`;

/**
 * The workspace's git holds exactly base_commit and its history: no refs, tags or objects past
 * it. When the source lacks some old object (a mirror that leaves out large files, a repository
 * with a damaged pack), only base_commit itself is fetched (depth 1) and the snapshot says so:
 * the task can still run, the agent just sees no history.
 */
function buildSnapshot(dir: string, sourceClone: string, task: Task): { shallow?: string } {
  const ws = join(dir, 'ws');
  mkdirSync(ws, { recursive: true });
  git(ws, ['init', '--quiet', '--initial-branch=main']);
  const fetch = (depth: string[]) =>
    git(ws, [
      'fetch',
      '--quiet',
      '--no-tags',
      ...depth,
      '--upload-pack=git -c uploadpack.allowAnySHA1InWant=true upload-pack',
      sourceClone,
      task.base_commit,
    ]);
  let shallow: string | undefined;
  try {
    fetch([]);
  } catch (e) {
    const why = (e as Error).message;
    if (!/unable to read|missing (blob|tree|commit)|did not send all necessary objects/i.test(why))
      throw e;
    const what = /unable to read [0-9a-f]+|missing (?:blob|tree|commit) [0-9a-f]+/i.exec(why)?.[0];
    shallow = `the source lacks objects of base_commit's history (${what ?? 'git could not read them'}); the workspace holds base_commit without history`;
    try {
      fetch(['--depth=1']);
    } catch (e2) {
      throw new InfraError(
        'provision',
        `${task.repo} at ${task.base_commit.slice(0, 12)} cannot be checked out from ${sourceClone}: the source lacks objects of base_commit itself (${(e2 as Error).message.slice(0, 300)}); use a complete clone of the repository as the mirror`,
        'source_incomplete',
      );
    }
  }
  git(ws, ['update-ref', 'refs/heads/main', task.base_commit]);
  git(ws, ['reset', '--quiet', '--hard', task.base_commit]);
  rmSync(join(ws, '.git', 'FETCH_HEAD'), { force: true });
  git(ws, ['config', 'user.name', 'nanobench-agent']);
  git(ws, ['config', 'user.email', 'agent@nanobench.invalid']);
  return shallow ? { shallow } : {};
}

/**
 * Where a task's environment lives when it is not the host's: a container image (its id keys
 * the snapshot, since the install's output depends on the toolchain) and how to run the install
 * command in it.
 */
export interface InstallEnvironment {
  key: string;
  run: (
    cwd: string,
    command: string,
    timeoutMs: number,
    signal?: AbortSignal,
  ) => Promise<RunResult>;
}

/** What the install command of a snapshot build is run with. */
export interface InstallOptions {
  /** Where it runs (a container sandbox's image); absent: on this machine. */
  environment?: InstallEnvironment;
  /** Aborted on interrupt: the install is stopped (and the snapshot not made). */
  signal?: AbortSignal;
  /** The run it is built for: its processes carry it, as a session's do. */
  runId?: string;
}

/**
 * The install command on this machine, as an agent runs under `--sandbox none`: in its own
 * process group, killed on timeout or interrupt with everything it started, in a pid namespace
 * that dies with NanoBench where one can be made (contain.ts), and tagged with the run and the
 * execution, so a resumed run ends what a killed one left (src/run/leftovers.ts).
 */
async function runOnHost(
  cwd: string,
  command: string,
  timeoutMs: number,
  o: InstallOptions & { yarnCache: string },
): Promise<RunResult & { aborted: boolean }> {
  const argv = [...detectContainment().prefix, '/bin/sh', '-c', command];
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  if (o.runId) env[RUN_ID_VAR] = o.runId;
  // Yarn 1's global cache is not safe for two installs at once (validate --concurrency, trials of
  // two tasks): one install reads a package the other is still unpacking ("the file appears to be
  // corrupt"). Each install gets its own, removed after it.
  env.YARN_CACHE_FOLDER = o.yarnCache;
  const r = await runProcessGroup({
    command: argv[0],
    args: argv.slice(1),
    cwd,
    env,
    timeoutMs,
    signal: o.signal,
    killGraceMs: 2000,
  });
  if (r.spawnError)
    throw new InfraError('install', `cannot start the install command: ${r.spawnError}`);
  return r;
}

async function runInstall(
  dir: string,
  task: Task,
  failedLog: string,
  o: InstallOptions,
): Promise<void> {
  if (!task.install_command) return;
  const cwd = join(dir, 'ws');
  const timeoutMs = task.timeouts.verifier_sec * 1000 * 4;
  const command = task.install_command;
  const yarnCache = join(dir, 'yarn-cache');
  // Removed asynchronously: a Yarn cache holds every tarball, and the proxy shares this loop.
  const r = await stillRunning(`installing ${task.task_id}`, () =>
    o.environment
      ? o.environment.run(cwd, command, timeoutMs, o.signal)
      : runOnHost(cwd, command, timeoutMs, { ...o, yarnCache }),
  ).finally(() => rm(yarnCache, { recursive: true, force: true }));
  if (o.signal?.aborted)
    throw new InfraError(
      'interrupted',
      `interrupted during the install command of ${task.task_id}`,
      'interrupted',
    );
  const log = `$ ${task.install_command}\nexit ${r.exitCode}${r.timedOut ? ' (timed out)' : ''}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
  writeFileSync(join(dir, 'install.log'), log);
  if (r.exitCode !== 0) {
    // The half-built environment is discarded; its log is kept, or the cause would go with it
    // (npm's own logs rotate away).
    mkdirSync(join(failedLog, '..'), { recursive: true });
    writeFileSync(failedLog, log);
    throw new InfraError(
      'install',
      `install command failed for ${task.task_id} (exit ${r.exitCode}${r.timedOut ? ', timed out' : ''}): ${r.stderr.trim().split('\n').slice(-3).join(' | ')}; the whole output is in ${failedLog}`,
      r.timedOut ? 'install_timeout' : 'install_failed',
    );
  }
}

/** Snapshot of the tree as it is on disk (tracked + untracked, minus ignored), without touching HEAD or the index. */
export function snapshotTree(ws: string): string {
  const index = join(ws, '.git', `nanobench-index-${process.pid}-${Date.now()}`);
  const env = { ...GIT_ENV, GIT_INDEX_FILE: index };
  try {
    execFileSync('git', ['add', '-A', '--', '.', ':(exclude).nanocoder'], {
      cwd: ws,
      env,
      stdio: 'pipe',
    });
    return execFileSync('git', ['write-tree'], { cwd: ws, env, encoding: 'utf8' }).trim();
  } catch (e) {
    throw new InfraError(
      'diff',
      `cannot snapshot ${ws}: ${(e as Error).message}`,
      'snapshot_failed',
    );
  } finally {
    rmSync(index, { force: true });
  }
}

/** Snapshots being built by this process: concurrent trials of one task wait for one build. */
const building = new Map<string, Promise<Snapshot & { reused: boolean }>>();

/**
 * Get (building once) the prepared environment for a task. Trials of this process share one
 * build (the install command runs once, also at --concurrency > 1); other processes building the
 * same snapshot are safe too (the first rename wins).
 */
export async function ensureSnapshot(
  cacheDir: string,
  task: Task,
  sourceClone: string,
  install: InstallOptions = {},
): Promise<Snapshot & { reused: boolean }> {
  const environment = install.environment;
  const key = hash(
    `${task.repo}\n${task.base_commit}\n${task.install_command ?? ''}${environment ? `\n${environment.key}` : ''}`,
  );
  const dir = join(cacheDir, 'envs', `${slug(task.repo)}-${task.base_commit.slice(0, 12)}-${key}`);
  const metaFile = join(dir, 'meta.json');
  if (existsSync(metaFile))
    return { ...JSON.parse(readFileSync(metaFile, 'utf8')), dir, reused: true };
  const pending = building.get(dir);
  if (pending) return { ...(await pending), reused: true };
  const build = buildEnv(dir, cacheDir, task, sourceClone, install);
  building.set(dir, build);
  try {
    return await build;
  } finally {
    building.delete(dir);
  }
}

async function buildEnv(
  dir: string,
  cacheDir: string,
  task: Task,
  sourceClone: string,
  install: InstallOptions,
): Promise<Snapshot & { reused: boolean }> {
  const metaFile = join(dir, 'meta.json');
  const tmp = tmpName(dir);
  mkdirSync(tmp, { recursive: true });
  try {
    const history = buildSnapshot(tmp, sourceClone, task);
    await runInstall(tmp, task, join(cacheDir, 'envs', 'failed', `${basename(dir)}.log`), install);
    const baselineTree = snapshotTree(join(tmp, 'ws'));
    const meta = {
      baselineTree,
      installRan: Boolean(task.install_command),
      createdAt: new Date().toISOString(),
      ...history,
    };
    writeFileSync(join(tmp, 'meta.json'), JSON.stringify(meta, null, 2));
    try {
      renameSync(tmp, dir);
    } catch {
      rmSync(tmp, { recursive: true, force: true });
      return { ...JSON.parse(readFileSync(metaFile, 'utf8')), dir, reused: true };
    }
    return { ...meta, dir, reused: false };
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
}

/**
 * A fresh workspace from the snapshot: an overlay on it where this machine can mount one, else a
 * copy (layers.ts). Whoever removes the workspace's parent must unmount it first (unmountUnder).
 */
export function materialize(
  snapshot: Snapshot,
  workspace: string,
  mode: ProvisionMode = 'auto',
): Promise<Layers> {
  return makeWorkspace(join(snapshot.dir, 'ws'), workspace, mode);
}

export interface ProvisionOptions {
  /** How to make the workspace (default auto: the fastest that works here). */
  mode?: ProvisionMode;
  /**
   * The user the sandbox runs the agent as, when not NanoBench's own (none-as-nobody): an overlay
   * then sits on a copy of the snapshot that user owns, made once.
   */
  owner?: { uid: number; gid: number };
  /** Where the install command runs (a container sandbox's image); absent: on this machine. */
  environment?: InstallEnvironment;
  /** Aborted on interrupt: an install under way is stopped. */
  signal?: AbortSignal;
  /** The run the trial belongs to (the install's processes carry it). */
  runId?: string;
}

export async function provision(
  cacheDir: string,
  task: Task,
  source: RepoSource,
  workspace: string,
  o: ProvisionOptions = {},
): Promise<ProvisionResult> {
  const clone = await ensureSourceClone(cacheDir, task.repo, source, {
    commits: [task.base_commit],
  });
  const snap = await ensureSnapshot(cacheDir, task, clone, {
    environment: o.environment,
    signal: o.signal,
    runId: o.runId,
  });
  const snapshotWs = join(snap.dir, 'ws');
  const started = Date.now();
  const owner = o.owner;
  // A copy is chowned by the sandbox itself; an overlay needs a lower layer the user owns.
  const layers = await makeWorkspace(
    (kind) =>
      owner && (kind === 'overlay' || kind === 'fuse-overlayfs')
        ? lowerOwnedBy(snapshotWs, owner)
        : snapshotWs,
    workspace,
    o.mode ?? 'auto',
  );
  const { upper, lower } = layers;
  return {
    workspace,
    baselineTree: snap.baselineTree,
    envReused: snap.reused,
    snapshotWs: lower,
    sourceClone: clone,
    layers,
    provisionMs: Date.now() - started,
    ...(upper && { changes: () => upperChanges(workspace, lower, upper) }),
  };
}
