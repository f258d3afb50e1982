// Node's module compile cache for the Nanocoder process. Every trial starts a fresh Nanocoder,
// which loads about 1,300 modules; Nanocoder 1.30 enables Node's compile cache itself, but in
// its default place, os.tmpdir(), which in a sandbox is a private /tmp that dies with the trial:
// each trial compiled everything again and wrote 7 MB of cache nobody read.
//
// NanoBench keeps one cache per install (Node binary and version, Nanocoder build) and writes it
// itself, outside any sandbox, by starting that Nanocoder once with no provider configured (it
// loads its module graph and exits). Trials then see the directory read-only. Sharing it across
// trials and runs is safe: it holds only V8 code compiled from Nanocoder's own install (nothing
// of a task, a workspace or a model's output), an agent can never write to it, and Node checks
// every entry against the source it was made from (a changed file is compiled afresh).
//
// Node files the cache under the uid of the process: under `--sandbox none` as root (agents run
// as nobody) the entries written as root are not used and nothing is gained, nothing broken.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import type { NodeRuntime } from './node-runtime.js';

/** NANOBENCH_COMPILE_CACHE: a directory to keep the caches in, or `off`. */
export const COMPILE_CACHE_VAR = 'NANOBENCH_COMPILE_CACHE';
const WARM_UP_TIMEOUT_MS = 60_000;

/** Where the caches live (undefined: disabled), from NANOBENCH_COMPILE_CACHE or the user's cache. */
export function compileCacheRoot(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const set = env[COMPILE_CACHE_VAR];
  if (set === 'off' || set === '0') return undefined;
  if (set) return path.resolve(set);
  const base = env.XDG_CACHE_HOME || path.join(env.HOME || homedir(), '.cache');
  return path.join(base, 'nanobench', 'nanocoder-compile-cache');
}

/** The node options that make Nanocoder's Node use `dir` (and nothing else: not its children). */
export function compileCacheArgs(dir: string): string[] {
  // A preload rather than NODE_COMPILE_CACHE in the environment: the environment is inherited
  // by the commands Nanocoder's tools run (the agent's own test runs), which must not change.
  const source = `import{enableCompileCache}from"node:module";enableCompileCache(${JSON.stringify(dir)});`;
  return ['--import', `data:text/javascript,${encodeURIComponent(source)}`];
}

export interface CompileCacheBuild {
  cliPath: string;
  version: string;
  commit?: string;
}

/** The cache directory of this Node and Nanocoder build under `root`. */
export function compileCacheDir(root: string, node: NodeRuntime, build: CompileCacheBuild): string {
  const key = [node.path, node.version, build.cliPath, build.version, build.commit ?? ''];
  const hash = createHash('sha256').update(key.join('\0')).digest('hex').slice(0, 16);
  return path.join(root, `node${node.version}-nanocoder${build.version}-${hash}`);
}

const hasEntries = (dir: string) => {
  try {
    return readdirSync(dir).some((d) => readdirSync(path.join(dir, d)).length > 0);
  } catch {
    return false;
  }
};

/** Starts Nanocoder once, with no provider, in `work`: it loads its modules and exits with 1. */
function warmUp(node: NodeRuntime, cliPath: string, cacheDir: string, work: string) {
  const env = {
    PATH: [path.dirname(node.path), '/usr/bin', '/bin'].join(path.delimiter),
    HOME: path.join(work, 'home'),
    NO_COLOR: '1',
    NANOCODER_CONFIG_DIR: path.join(work, 'config'),
    NANOCODER_DATA_DIR: path.join(work, 'data'),
  };
  const args = [...compileCacheArgs(cacheDir), cliPath];
  args.push('--provider', 'nanobench-warm-up', '--model', 'none', '--mode', 'yolo');
  args.push('--trust-directory', '--plain', '--json', 'run', 'warm up');
  return new Promise<void>((done) => {
    const p = execFile(
      node.path,
      args,
      { cwd: path.join(work, 'cwd'), env, timeout: WARM_UP_TIMEOUT_MS },
      () => done(),
    );
    p.stdin?.end();
  });
}

/**
 * The ready cache directory of this Node and Nanocoder build, written first if need be; undefined
 * when it cannot be made (the trials then run as they would without it). Concurrent NanoBench
 * processes each warm a private directory and the first to rename it into place wins.
 */
export async function ensureCompileCache(
  root: string,
  node: NodeRuntime,
  build: CompileCacheBuild,
): Promise<string | undefined> {
  const dir = compileCacheDir(root, node, build);
  if (hasEntries(dir)) return dir;
  let work: string | undefined;
  try {
    await mkdir(root, { recursive: true, mode: 0o700 });
    work = await mkdtemp(path.join(root, '.warm-'));
    for (const d of ['home', 'config', 'data', 'cwd']) await mkdir(path.join(work, d));
    const cache = path.join(work, 'cache');
    await warmUp(node, build.cliPath, cache, work);
    if (!hasEntries(cache)) return undefined;
    await rename(cache, dir).catch(() => undefined); // lost the race: the winner's is as good
    return hasEntries(dir) ? dir : undefined;
  } catch {
    return existsSync(dir) && hasEntries(dir) ? dir : undefined;
  } finally {
    if (work) await rm(work, { recursive: true, force: true }).catch(() => undefined);
  }
}
