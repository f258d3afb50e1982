// What a run needs around its trials, built in one place for local runs, queue workers and the
// demo: the agent (and the facts recorded about it), the sandbox this machine gives it, and the
// model endpoints (the provider proxy). The sandbox hides NanoBench's own files from agents; the
// list of what it hides is written here once.
import { createAgent } from '../agent/index.js';
import type { Agent } from '../agent/types.js';
import { type Endpoints, startEndpoints } from '../provider/endpoints.js';
import { SCRIPTED } from '../provider/providers-config.js';
import { isHarborTask } from '../task/harbor.js';
import { hasEnvironment } from '../trial/environment.js';
import { UserError } from '../util/errors.js';
import { PACKAGE_ROOT } from '../util/package-root.js';
import { selectSandbox } from '../workspace/sandbox/select.js';
import type { SandboxDriver } from '../workspace/sandbox/types.js';
import { isLlmAgent, type RunConfig } from './config.js';
import type { TrialSpec } from './plan.js';

export interface RunWiring {
  agent: Agent;
  sandbox: SandboxDriver;
  endpoints: Endpoints;
}

export interface WiringOptions {
  /** Directories agents must never see: the results root, caches, datasets (NanoBench's package is added). */
  protectedPaths: string[];
  /** The trials to serve (a replay checks it has a cassette for each before anything runs). */
  plan?: TrialSpec[];
  /** Warnings (e.g. running without a sandbox), for stderr. */
  log?: (line: string) => void;
  /** Use this agent instead of building one from the config (tests). */
  agent?: Agent;
  /**
   * The demo: when every model is scripted, `--sandbox auto` may fall back for Nanocoder too
   * (`nanobench run` never does: there the models may be real).
   */
  scriptedFallback?: boolean;
  /** The cache of the tasks' repositories, for models derived from the task (src/derived/). */
  cacheDir?: string;
  mirrorDir?: string;
  /** A provider answered 429 with a retry-after (src/run/slots.ts slows its requests). */
  onRateLimit?: (provider: string, retryAfterMs: number) => void;
}

export async function wireRun(config: RunConfig, o: WiringOptions): Promise<RunWiring> {
  const agent = o.agent ?? (await createAgent(config));
  // Before choosing a sandbox (whose warnings would come first): Harbor tasks need a container.
  const harbor = o.plan?.find((s) => isHarborTask(s.task.task));
  if (harbor && config.sandbox !== 'podman' && config.sandbox !== 'docker')
    throw new UserError(
      'NEEDS_CONTAINER',
      `task ${harbor.task.task.task_id} is a Harbor task: it runs in its environment image, so use --sandbox podman (or docker)`,
    );
  const sandbox = await selectSandbox(config.sandbox ?? 'auto', {
    protectedPaths: [...new Set([PACKAGE_ROOT, ...o.protectedPaths])],
    warn: o.log,
    llmAgent: isLlmAgent(config.agent),
    scriptedModels:
      o.scriptedFallback && !config.replay && config.models.every((m) => m.provider === SCRIPTED),
    image: config.image,
    buildArgs: config.buildArgs,
  });
  if (sandbox.container && !sandbox.container.defaultImage) {
    const bare = o.plan?.find((s) => !hasEnvironment(s.task.task));
    if (bare)
      throw new UserError(
        'NO_IMAGE',
        `--sandbox ${sandbox.kind}: task ${bare.task.task.task_id} declares no environment; give the image it runs in with --image REF`,
      );
  }
  const llm = config.models.some((m) => m.provider !== 'none');
  const endpoints = await startEndpoints(config, llm, o.plan, {
    cacheDir: o.cacheDir,
    mirrorDir: o.mirrorDir,
    onRateLimit: o.onRateLimit,
  });
  return { agent, sandbox, endpoints };
}
