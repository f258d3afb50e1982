// A container engine (podman or docker) driven through its CLI: the same commands, flags and
// behaviour for both, except where noted. Nothing here talks to a registry unless an image
// reference names one and the image is missing (then the engine pulls it, as a user would).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { InfraError } from '../../util/errors.js';
import { run } from '../../util/process.js';
import { which } from '../../util/which.js';
import { LIMITS } from './limits.js';

export const ENGINES = ['podman', 'docker'] as const;
export type EngineName = (typeof ENGINES)[number];

export interface Engine {
  name: EngineName;
  /** Absolute path of the engine's CLI. */
  bin: string;
  /** Put after `run` / `build`: the OCI runtime to use (podman: runc when installed, see below). */
  runtimeArgs: string[];
  /** --ulimit flags at or below this process's own limits. */
  ulimits: string[];
}

/** This process's soft and hard limits, from /proc/self/limits (null: unlimited). */
export function ownLimits(text?: string): Record<string, [number | null, number | null]> {
  let t = text;
  try {
    t ??= readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return {};
  }
  const out: Record<string, [number | null, number | null]> = {};
  const num = (s: string) => (s === 'unlimited' ? null : Number(s));
  for (const line of t.split('\n').slice(1)) {
    const m = /^(Max [a-z ]+?)\s{2,}(\S+)\s+(\S+)/.exec(line);
    if (m) out[m[1]] = [num(m[2]), num(m[3])];
  }
  return out;
}

/**
 * The container's rlimits. An engine's defaults (podman: nofile 1048576, nproc 4194304) are
 * above what this machine allows a process, and the runtime then fails with "setrlimit ...
 * Operation not permitted"; so every limit is asked for explicitly, never above our own soft one.
 */
export function ulimitArgs(limits = ownLimits()): string[] {
  const cap = (key: string, want: number) => {
    const soft = limits[key]?.[0];
    return soft === null || soft === undefined ? want : Math.min(want, soft);
  };
  const nofile = cap('Max open files', 65536);
  const nproc = cap('Max processes', LIMITS.nproc);
  const fsize = cap('Max file size', LIMITS.fsize);
  const data = cap('Max data size', LIMITS.data);
  return [
    `nofile=${nofile}:${nofile}`,
    `nproc=${nproc}:${nproc}`,
    `fsize=${fsize}:${fsize}`,
    `data=${data}:${data}`,
    'core=0:0',
  ].flatMap((u) => ['--ulimit', u]);
}

/**
 * The engine's CLI, when installed. Podman gets `--runtime runc` when runc is installed: crun
 * (podman's default when present) refuses cgroup v1 hosts ("cgroups in hybrid mode not
 * supported"), and runc runs on v1 and v2 alike. NANOBENCH_OCI_RUNTIME overrides it.
 */
export function findEngine(name: EngineName): Engine | null {
  const bin = which(name);
  if (!bin) return null;
  let runtimeArgs: string[] = [];
  const wanted = process.env.NANOBENCH_OCI_RUNTIME;
  if (wanted) runtimeArgs = ['--runtime', wanted];
  else if (name === 'podman') {
    const runc = which('runc');
    if (runc) runtimeArgs = ['--runtime', runc];
  }
  return { name, bin, runtimeArgs, ulimits: ulimitArgs() };
}

const lastLines = (s: string, n = 3) =>
  s.trim().split('\n').slice(-n).join(' | ').slice(0, 600) || '(no output)';

/** Whether the engine answers at all (docker: is there a daemon?); the reason when it does not. */
export async function engineProblem(e: Engine): Promise<string | undefined> {
  const r = await run(e.bin, ['version', '--format', '{{.Server.Version}}'], {
    cwd: '/',
    timeoutMs: 30_000,
  });
  if (r.exitCode === 0) return undefined;
  return `${e.name} does not answer (${lastLines(r.stderr || r.stdout, 1)})`;
}

export async function imageExists(e: Engine, ref: string): Promise<boolean> {
  const r = await run(e.bin, ['image', 'inspect', '--format', '{{.Id}}', ref], {
    cwd: '/',
    timeoutMs: 60_000,
  });
  return r.exitCode === 0;
}

export interface ImageFacts {
  id: string;
  /** The image's WORKDIR ("" when it sets none). */
  workdir: string;
}

export async function inspectImage(e: Engine, ref: string): Promise<ImageFacts> {
  const r = await run(
    e.bin,
    ['image', 'inspect', '--format', '{{.Id}}\t{{.Config.WorkingDir}}', ref],
    { cwd: '/', timeoutMs: 60_000 },
  );
  if (r.exitCode !== 0)
    throw new InfraError(
      'provision',
      `image ${ref} cannot be inspected: ${lastLines(r.stderr)}`,
      'image_unavailable',
    );
  const [id, workdir = ''] = r.stdout.trim().split('\t');
  return { id, workdir };
}

/** An image that is not here yet: pulled by reference (needs its registry). */
export async function pullImage(e: Engine, ref: string, timeoutMs: number): Promise<void> {
  const r = await run(e.bin, ['pull', ref], { cwd: '/', timeoutMs });
  if (r.exitCode !== 0)
    throw new InfraError(
      'provision',
      `image ${ref} is not on this machine and cannot be pulled (${lastLines(r.stderr)}); build it here, or name a local image (${e.name} images)`,
      'image_unavailable',
    );
}

export interface BuildOptions {
  dockerfile: string;
  context: string;
  tag: string;
  buildArgs: string[];
  timeoutMs: number;
  /** Where the build's output goes when it fails (the error names it). */
  logFile?: string;
}

/**
 * `podman build` / `docker build`. RUN steps get the host's network (package registries, as
 * install commands always had) and the same ulimits as containers.
 */
export async function buildImage(e: Engine, o: BuildOptions): Promise<string> {
  const args = ['build', ...e.runtimeArgs, '--network', 'host', '-f', o.dockerfile, '-t', o.tag];
  if (e.name === 'podman') args.push(...e.ulimits);
  for (const a of o.buildArgs) args.push('--build-arg', a);
  args.push(o.context);
  const r = await run(e.bin, args, { cwd: o.context, timeoutMs: o.timeoutMs });
  if (r.exitCode !== 0 || r.timedOut)
    throw new InfraError(
      'provision',
      `building the environment ${o.dockerfile} failed${r.timedOut ? ` (timed out after ${o.timeoutMs / 1000}s)` : ` (exit ${r.exitCode})`}: ${lastLines(r.stderr || r.stdout)}`,
      'image_build_failed',
    );
  return `${r.stdout}\n${r.stderr}`;
}

/** Copy `path` (a directory) out of an image into `dest` (created by the engine). */
export async function copyFromImage(
  e: Engine,
  image: string,
  path: string,
  dest: string,
): Promise<void> {
  const created = await run(e.bin, ['create', ...e.runtimeArgs, image, '/bin/true'], {
    cwd: '/',
    timeoutMs: 120_000,
  });
  const id = created.stdout.trim().split('\n').pop() ?? '';
  if (created.exitCode !== 0 || !id)
    throw new InfraError(
      'provision',
      `cannot create a container of ${image}: ${lastLines(created.stderr)}`,
      'container_failed',
    );
  try {
    const cp = await run(e.bin, ['cp', `${id}:${path.replace(/\/?$/, '/.')}`, dest], {
      cwd: '/',
      timeoutMs: 600_000,
    });
    if (cp.exitCode !== 0)
      throw new InfraError(
        'provision',
        `cannot copy ${path} out of ${image}: ${lastLines(cp.stderr)}`,
        'container_failed',
      );
  } finally {
    await run(e.bin, ['rm', '-f', id], { cwd: '/', timeoutMs: 120_000 });
  }
}

/** Remove every container carrying label `key=value` (running or not); best effort. */
export async function removeLabelled(e: Engine, key: string, value: string): Promise<number> {
  return removeLabelledIf(e, key, value, () => true);
}

/** Remove the containers carrying label `key=value` for which `remove(labels)` says so. */
export async function removeLabelledIf(
  e: Engine,
  key: string,
  value: string,
  remove: (labels: Record<string, string>) => boolean,
): Promise<number> {
  const ps = await run(e.bin, ['ps', '-a', '-q', '--filter', `label=${key}=${value}`], {
    cwd: '/',
    timeoutMs: 60_000,
  });
  let ids = ps.stdout.split('\n').filter(Boolean);
  if (ids.length === 0) return 0;
  const inspected = await run(e.bin, ['inspect', '--format', '{{json .Config.Labels}}', ...ids], {
    cwd: '/',
    timeoutMs: 60_000,
  });
  const labels = inspected.stdout.split('\n').filter(Boolean);
  // One gone between ps and inspect leaves the lines unmatched: remove nothing this time.
  if (labels.length === ids.length)
    ids = ids.filter((_, i) => {
      try {
        return remove(JSON.parse(labels[i]) ?? {});
      } catch {
        return false;
      }
    });
  else ids = [];
  if (ids.length) await run(e.bin, ['rm', '-f', ...ids], { cwd: '/', timeoutMs: 120_000 });
  return ids.length;
}

/** Shared libraries a binary needs, and its dynamic loader (empty for a static binary). */
export function sharedLibraries(binary: string): { loader?: string; libs: string[] } {
  let out: string;
  try {
    out = execFileSync('ldd', [binary], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return { libs: [] };
  }
  const libs: string[] = [];
  let loader: string | undefined;
  for (const line of out.split('\n')) {
    const arrow = /=>\s+(\/\S+)/.exec(line);
    if (arrow) libs.push(arrow[1]);
    else {
      const bare = /^\s*(\/\S+ld-linux\S*)\s/.exec(line);
      if (bare) loader = bare[1];
    }
  }
  return { loader, libs };
}
