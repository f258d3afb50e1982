// Environment images for container sandboxes. A task declares its environment as a Dockerfile
// (built here, once, and cached by content) or as an image reference (used as it is; pulled only
// when missing). A task that declares none runs in the run's --image. The cache key is
// everything the build depends on: the engine, the Dockerfile, every file of its build context
// and the build arguments; the built image is tagged with it, so a later run (or another
// trial) finds it and builds nothing.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { InfraError } from '../util/errors.js';
import { buildImage, type Engine, imageExists, inspectImage, pullImage } from './sandbox/engine.js';

/** What a task says about its environment (paths absolute). */
export interface EnvironmentDecl {
  dockerfile?: string;
  /** Build context (default: the Dockerfile's directory). */
  context?: string;
  image?: string;
  /** Seconds a build may take (Harbor's build_timeout_sec; default 30 minutes). */
  buildTimeoutSec?: number;
}

export interface PreparedEnvironment {
  /** Image id: what sessions run and what environment snapshots are keyed by. */
  id: string;
  /** The reference it was found or built under. */
  ref: string;
  /** True when this call built it (false: found in the engine's store). */
  built: boolean;
  /** The image's WORKDIR ("" when none). */
  workdir: string;
  buildMs: number;
}

function contextDigest(dir: string, into: ReturnType<typeof createHash>): void {
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    )) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() || e.isSymbolicLink()) {
        into.update(`${relative(dir, p)}\0`);
        // A link counts by where it points: a new target is a new build context.
        into.update(e.isFile() ? readFileSync(p) : `-> ${readlinkSync(p)}`);
        into.update('\0');
      }
    }
  };
  walk(dir);
}

/** The cache key of a Dockerfile build. */
export function buildKey(engine: Engine, decl: EnvironmentDecl, buildArgs: string[]): string {
  const h = createHash('sha256');
  h.update(`${engine.name}\n${[...buildArgs].sort().join('\n')}\n`);
  h.update(readFileSync(decl.dockerfile!));
  contextDigest(decl.context ?? join(decl.dockerfile!, '..'), h);
  return h.digest('hex').slice(0, 24);
}

const building = new Map<string, Promise<PreparedEnvironment>>();

export interface EnsureOptions {
  buildArgs: string[];
  /** Where a failed build's output is kept. */
  logDir?: string;
  log?: (line: string) => void;
}

/** The image of an environment: found in the engine's store, built, or pulled. */
export function ensureEnvironment(
  engine: Engine,
  decl: EnvironmentDecl,
  o: EnsureOptions,
): Promise<PreparedEnvironment> {
  if (decl.image && !decl.dockerfile) return referenced(engine, decl.image, decl);
  if (!decl.dockerfile)
    throw new InfraError('provision', 'an environment needs a Dockerfile or an image', 'no_image');
  const tag = `localhost/nanobench-env:${buildKey(engine, decl, o.buildArgs)}`;
  // One build per image in this process, however many trials ask at once.
  let p = building.get(tag);
  if (!p) {
    p = built(engine, decl, tag, o);
    building.set(tag, p);
    // Later trials find it built: only the trials that waited for the build say they built it.
    p.then(
      (e) => building.set(tag, Promise.resolve({ ...e, built: false, buildMs: 0 })),
      () => building.delete(tag),
    );
  }
  return p;
}

async function referenced(
  engine: Engine,
  ref: string,
  decl: EnvironmentDecl,
): Promise<PreparedEnvironment> {
  const started = Date.now();
  if (!(await imageExists(engine, ref)))
    await pullImage(engine, ref, (decl.buildTimeoutSec ?? 1800) * 1000);
  const facts = await inspectImage(engine, ref);
  return { ...facts, ref, built: false, buildMs: Date.now() - started };
}

async function built(
  engine: Engine,
  decl: EnvironmentDecl,
  tag: string,
  o: EnsureOptions,
): Promise<PreparedEnvironment> {
  const started = Date.now();
  if (await imageExists(engine, tag)) {
    const facts = await inspectImage(engine, tag);
    return { ...facts, ref: tag, built: false, buildMs: Date.now() - started };
  }
  o.log?.(`building the environment ${decl.dockerfile} (${engine.name}, ${tag})`);
  try {
    await buildImage(engine, {
      dockerfile: decl.dockerfile!,
      context: decl.context ?? join(decl.dockerfile!, '..'),
      tag,
      buildArgs: o.buildArgs,
      timeoutMs: (decl.buildTimeoutSec ?? 1800) * 1000,
    });
  } catch (e) {
    if (o.logDir && e instanceof InfraError) {
      mkdirSync(o.logDir, { recursive: true });
      const file = join(o.logDir, `${tag.split(':').pop()}.log`);
      writeFileSync(file, `${decl.dockerfile}\n${e.message}\n`);
    }
    throw e;
  }
  const facts = await inspectImage(engine, tag);
  const buildMs = Date.now() - started;
  o.log?.(`built ${tag} in ${(buildMs / 1000).toFixed(1)} s`);
  return { ...facts, ref: tag, built: true, buildMs };
}
