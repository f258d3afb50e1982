// A trial's environment under a container sandbox: which image its sessions run in (the task's
// Dockerfile, built once and cached; its image reference; or the run's --image) and how its
// install command runs there. Without a container sandbox there is nothing to prepare: the
// host's toolchain is the environment.
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { agentEnv } from '../agent/agent-env.js';
import { type HarborTask, isHarborTask } from '../task/harbor.js';
import { environmentPath } from '../task/load.js';
import type { ResolvedTask } from '../task/patches.js';
import { InfraError } from '../util/errors.js';
import { run } from '../util/process.js';
import { stillRunning } from '../util/still-running.js';
import {
  type EnvironmentDecl,
  ensureEnvironment,
  type PreparedEnvironment,
} from '../workspace/environment.js';
import type { InstallEnvironment } from '../workspace/provision.js';
import { withSession } from '../workspace/sandbox/session.js';
import type { SandboxDriver } from '../workspace/sandbox/types.js';
import type { RunnableTask } from './spec.js';

export const hasEnvironment = (task: ResolvedTask | HarborTask): boolean =>
  isHarborTask(task) || task.environment !== undefined;

/** The task's own environment, paths resolved (v1: against its dataset; Harbor: its directory). */
export function environmentDecl(lt: RunnableTask): EnvironmentDecl | undefined {
  const t = lt.task;
  if (isHarborTask(t)) {
    const e = t.config.environment;
    const timeout = { buildTimeoutSec: e.build_timeout_sec };
    return e.docker_image
      ? { image: e.docker_image, ...timeout }
      : {
          dockerfile: join(t.dir, 'environment', 'Dockerfile'),
          context: join(t.dir, 'environment'),
          ...timeout,
        };
  }
  const e = t.environment;
  if (!e) return undefined;
  if (e.image) return { image: e.image };
  // Checked when the task was loaded; again here, where the disk may have changed since.
  const context = environmentPath(t, lt.file, lt.datasetDir, 'context');
  return {
    dockerfile: environmentPath(t, lt.file, lt.datasetDir, 'dockerfile')!,
    ...(context && { context }),
  };
}

export function resourcesOf(task: ResolvedTask | HarborTask): { cpus?: number; memoryMb?: number } {
  const e = isHarborTask(task) ? task.config.environment : task.environment;
  return {
    ...(e?.cpus !== undefined && { cpus: e.cpus }),
    ...(e?.memory_mb !== undefined && { memoryMb: e.memory_mb }),
  };
}

/** The image the trial's sessions run in; undefined when the sandbox is not a container. */
export async function prepareEnvironment(
  sandbox: SandboxDriver,
  lt: RunnableTask,
  cacheDir: string,
): Promise<PreparedEnvironment | undefined> {
  const c = sandbox.container;
  if (!c) return undefined;
  const decl = environmentDecl(lt) ?? (c.defaultImage ? { image: c.defaultImage } : undefined);
  if (!decl)
    throw new InfraError(
      'provision',
      `task ${lt.task.task_id} declares no environment and the run has no --image`,
      'no_image',
    );
  return stillRunning(`building the environment of ${lt.task.task_id}`, () =>
    ensureEnvironment(c.engine, decl, {
      buildArgs: c.buildArgs,
      logDir: join(cacheDir, 'envs', 'failed'),
    }),
  );
}

/**
 * The environment of an install command in a container: what an agent may inherit, plus the
 * host's proxy settings (it has the machine's network, to reach the package registries). The
 * launcher passes it into the container by name; NanoBench's secrets stay out.
 */
function installEnv(home: string): Record<string, string> {
  const proxy = Object.entries(process.env).filter(
    (e): e is [string, string] => /^(https?|no|all)_proxy$/i.test(e[0]) && e[1] !== undefined,
  );
  return agentEnv({ ...Object.fromEntries(proxy), HOME: home });
}

/**
 * The install command in a container of the image: the snapshot's workspace mounted at its real
 * path, the machine's network (package registries, as on the host), the image read-only (what
 * an install leaves must be in the workspace: nothing else survives the container).
 */
export function containerInstaller(
  sandbox: SandboxDriver,
  env: PreparedEnvironment,
  o: { runId?: string; resources: { cpus?: number; memoryMb?: number } },
): InstallEnvironment {
  return {
    key: env.id,
    run: async (cwd, command, timeoutMs, signal) => {
      const home = join(cwd, '..', `install-home-${randomUUID().slice(0, 8)}`);
      mkdirSync(home, { recursive: true });
      try {
        const r = await withSession(
          sandbox,
          {
            workspace: cwd,
            home,
            tag: randomUUID(),
            runId: o.runId,
            image: env.id,
            network: 'host',
            resources: o.resources,
          },
          (session) => {
            const w = session.wrap('/bin/sh', ['-c', command]);
            return run(w.command, w.args, { cwd, timeoutMs, signal, env: installEnv(home) });
          },
        );
        return r.value;
      } finally {
        rmSync(home, { recursive: true, force: true });
      }
    },
  };
}
