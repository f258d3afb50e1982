// A Harbor task's workspace is its image's WORKDIR: copied out of the image once per image (the
// snapshot), copied per trial, and mounted back at WORKDIR in every container of the trial. No
// .git is planted in it (the task's environment is the agent's, as Harbor gives it): what the
// agent changed is the difference between the trial's copy and the snapshot, file by file.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { InfraError } from '../util/errors.js';
import { sameEntry, walk } from '../util/fs-tree.js';
import type { PreparedEnvironment } from '../workspace/environment.js';
import { copyFromImage, type Engine } from '../workspace/sandbox/engine.js';

/** The image's WORKDIR as a directory on the host (built once per image id). */
export async function ensureWorkdirSnapshot(
  cacheDir: string,
  engine: Engine,
  env: PreparedEnvironment,
  taskId: string,
): Promise<string> {
  if (!env.workdir || env.workdir === '/')
    throw new InfraError(
      'provision',
      `task ${taskId}: its environment sets no WORKDIR (or WORKDIR /); NanoBench gives the agent the WORKDIR as its workspace: add e.g. "WORKDIR /app" to the Dockerfile`,
      'no_workdir',
    );
  const dir = join(cacheDir, 'harbor-envs', env.id.replace(/^sha256:/, '').slice(0, 24));
  if (existsSync(join(dir, 'meta.json'))) return join(dir, 'ws');
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  mkdirSync(join(tmp, 'ws'), { recursive: true });
  try {
    await copyFromImage(engine, env.id, env.workdir, join(tmp, 'ws'));
    writeFileSync(
      join(tmp, 'meta.json'),
      JSON.stringify({ image: env.id, workdir: env.workdir, createdAt: new Date().toISOString() }),
    );
    try {
      renameSync(tmp, dir);
    } catch {
      rmSync(tmp, { recursive: true, force: true }); // another trial won the race
    }
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  return join(dir, 'ws');
}

export function copyTree(from: string, to: string): void {
  rmSync(to, { recursive: true, force: true });
  mkdirSync(join(to, '..'), { recursive: true });
  try {
    execFileSync('cp', ['-a', from, to], { stdio: 'pipe' });
  } catch (e) {
    throw new InfraError(
      'provision',
      `cannot copy workspace: ${(e as Error).message}`,
      'copy_failed',
    );
  }
}

export interface TreeDiff {
  files: string[];
  patch: string;
}

/** Files that differ between the snapshot and the workspace (added, changed, removed) and the diff. */
export function treeDiff(snapshot: string, ws: string): TreeDiff {
  const files = new Set<string>();
  const rels = (root: string) =>
    new Map(walk(root, (_rel, name) => name === '.git').map((e) => [e.rel, e.type]));
  const now = rels(ws);
  const then = rels(snapshot);
  for (const [rel, type] of now) {
    if (type === 'dir') continue;
    if (!then.has(rel) || !sameEntry(join(ws, rel), join(snapshot, rel))) files.add(rel);
  }
  for (const [rel, type] of then) if (type !== 'dir' && !now.has(rel)) files.add(rel);
  const list = [...files].sort();
  const patch = list.length ? gitDiffNoIndex(snapshot, ws) : '';
  return { files: list, patch };
}

function gitDiffNoIndex(a: string, b: string): string {
  const r = spawnSync(
    'git',
    [
      '-c',
      'core.quotepath=off',
      'diff',
      '--no-index',
      '--binary',
      '--no-renames',
      '--no-color',
      a,
      b,
    ],
    { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 },
  );
  // --no-index exits 1 when the trees differ; paths come out absolute: make them relative.
  return (r.stdout ?? '').split(`a${a}/`).join('a/').split(`b${b}/`).join('b/');
}

/** A file's text, or undefined. */
export function readText(p: string): string | undefined {
  try {
    return readFileSync(p, 'utf8');
  } catch {
    return undefined;
  }
}
