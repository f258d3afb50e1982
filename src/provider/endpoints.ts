// The model endpoint each LLM-agent trial talks to: always the NanoBench provider proxy (one per
// run, src/provider/proxy.ts), in front of the scripted model server, a declared provider, or a
// cassette being replayed. Everything that can fail on bad input fails here, before any trial.
import { basename, join } from 'node:path';
import type { Mode } from '../agent/types.js';
import { BEHAVIOURS, derivedBehaviour } from '../derived/behaviours.js';
import { checkDerivedModel, type DerivedSource, derivedSource } from '../derived/source.js';
import type { HarborTask } from '../task/harbor.js';
import { isHarborLoaded, type LoadedTask } from '../task/load.js';
import type { ResolvedTask } from '../task/patches.js';
import { InfraError, UserError } from '../util/errors.js';
import { PACKAGE_ROOT } from '../util/package-root.js';
import {
  type CassetteHeader,
  cassetteKey,
  indexCassettes,
  kindOf,
  loadCassette,
} from './cassette.js';
import { safeUrl, type Upstream } from './forward.js';
import type { ProviderKind } from './kinds.js';
import {
  describePreflight,
  type PreflightResult,
  type PreflightTarget,
  preflightOne,
  stopsTheRun,
} from './preflight.js';
import {
  DEFAULT_PROVIDERS_FILE,
  loadProvidersConfig,
  resolveUpstream,
  SCRIPTED,
  takeApiKey,
} from './providers-config.js';
import {
  type ProviderProxy,
  type ProxyTrial,
  type RequestGate,
  startProxy,
  type TrialOptions,
  type TrialTelemetry,
} from './proxy.js';
import { loadScripts, type ModelScript, startScriptedServer } from './scripted-server.js';
import { checkProxyEnv } from './upstream-proxy.js';
import type { Price } from './usage.js';

export type { TrialTelemetry } from './proxy.js';

export const DEFAULT_SCRIPTS_DIR = join(PACKAGE_ROOT, 'examples', 'scripted-models');
export const CASSETTE_FILE = 'cassette.jsonl';

/**
 * What the endpoints read of a run's configuration: the run's `RunConfig` (src/run/config.ts)
 * satisfies it. Declared here, so the proxy's layer does not import the run that wires it.
 */
export interface EndpointsConfig {
  /** The run's (provider, model) pairs. */
  models: { provider: string; model: string }[];
  mirror?: string;
  /** Directory of scripted-model scripts, for --provider scripted. */
  scripts?: string;
  /** NanoBench providers file (names key variables, never keys). */
  providersConfig?: string;
  /** Write cassettes here instead of each trial's artifacts directory. */
  record?: string;
  /** Serve trials from the cassettes under this directory; no provider is called. */
  replay?: string;
  tokenBudget?: number;
  requestBudget?: number;
}

/** What the endpoints read of a planned trial: the run's `TrialSpec` (src/trial/spec.ts) satisfies it. */
export interface EndpointTrial {
  /** The trial's key in the plan (a cassette's header names it). */
  key: string;
  task: LoadedTask<ResolvedTask | HarborTask>;
  /** The agent that plays it; the bare agent gets a derived model's replies in its format. */
  agent?: string;
  provider: string;
  model: string;
  mode: Mode;
  attempt: number;
}

/** What a trial brings to its endpoint: where its cassette goes, and its provider's request slots. */
export interface EndpointFor {
  artifactsDir: string;
  /** The trial's model requests wait for one of these before going upstream (src/run/slots.ts). */
  gate?: RequestGate;
}

/** A trial's endpoint: what the agent is given, and the proxy's account once it is done. */
export interface TrialEndpoint {
  baseUrl: string;
  apiKey: string;
  /** The wire format to speak (the agent's client is configured for it). */
  kind?: ProviderKind;
  /** Settles when the agent's first model request arrives: its start is over (src/run/slots.ts). */
  firstRequest?: Promise<void>;
  finish?(): TrialTelemetry;
}

export interface Endpoints {
  endpointFor(spec: EndpointTrial, trial?: EndpointFor): TrialEndpoint | undefined;
  /**
   * One minimal request per (provider, model) of the run through the proxy, before any trial
   * (src/provider/preflight.ts). Throws an InfraError (exit 1) naming the pair, the HTTP status
   * and the fix when a provider refuses the key, the account or the model; logs a line for a
   * pair that is rate-limited, failing or silent, and goes on.
   */
  preflight(log?: (line: string) => void): Promise<PreflightResult[]>;
  close(): Promise<void>;
}

const NONE: Endpoints = {
  endpointFor: () => undefined,
  preflight: async () => [],
  close: async () => {},
};

type Routed = { upstream: Upstream; price?: Price };
type UpstreamFor = (spec: EndpointTrial) => Routed;

/** How the run's preflight reaches one (provider, model) pair, and how to fix a refused key. */
type PreflightFor = (provider: string, model: string) => Routed & { keyFix: string };

/**
 * A scripted model must have a behaviour for every task it is planned on (or a "*"): without one
 * it would silently do nothing and score. Refused when the run is planned, naming both.
 */
export function unscriptedTasks(
  scripts: ModelScript[],
  plan: EndpointTrial[],
): { model: string; task: string }[] {
  const byModel = new Map(scripts.map((s) => [s.model, s]));
  const seen = new Set<string>();
  const missing: { model: string; task: string }[] = [];
  for (const spec of plan) {
    const script = spec.provider === SCRIPTED ? byModel.get(spec.model) : undefined;
    const task = spec.task.task.task_id;
    const key = `${spec.model}\0${task}`;
    if (!script || script.refuse || seen.has(key)) continue;
    seen.add(key);
    if (!script.tasks[task] && !script.tasks['*']) missing.push({ model: spec.model, task });
  }
  return missing;
}

/** Where derived models (`derived:golden`, ...) find the tasks' repositories. */
export interface EndpointOptions {
  /** NanoBench's cache (source clones); needed by derived models only. */
  cacheDir?: string;
  mirrorDir?: string;
  /** Told of every 429 with a retry-after that a trial's provider sends. */
  onRateLimit?: (provider: string, retryAfterMs: number) => void;
}

const isDerived = (model: string) => model.startsWith('derived:');

/**
 * Derived models are built from each task when the run starts (or, in a queue worker, when the
 * trial does): a behaviour that cannot be built for a planned task is refused here, naming both
 * and why, as an unscripted task is.
 */
async function derivedFor(
  config: EndpointsConfig,
  plan: EndpointTrial[],
  o: EndpointOptions,
): Promise<DerivedSource | undefined> {
  const models = config.models.filter((m) => m.provider === SCRIPTED && isDerived(m.model));
  if (!models.length) return undefined;
  for (const m of models) checkDerivedModel(m.model, BEHAVIOURS);
  if (!o.cacheDir)
    throw new UserError('NO_CACHE', "derived models need the cache of the tasks' repositories");
  const source = derivedSource({ cacheDir: o.cacheDir, mirrorDir: o.mirrorDir ?? config.mirror });
  for (const spec of plan) {
    const behaviour = spec.provider === SCRIPTED ? derivedBehaviour(spec.model) : undefined;
    if (!behaviour) continue;
    if (isHarborLoaded(spec.task))
      throw new UserError(
        'UNBUILDABLE',
        `scripted model "${spec.model}" cannot play Harbor task "${spec.task.task.task_id}": derived behaviours are built from a PR task's golden patch; leave the task out with --task`,
      );
    await source.prepare(spec.task as LoadedTask<ResolvedTask>);
    const steps = await source.steps(spec.model, spec.task.task.task_id, spec.agent === 'bare');
    if (steps && 'unbuildable' in steps)
      throw new UserError(
        'UNBUILDABLE',
        `scripted model "${spec.model}" cannot be built for task "${spec.task.task.task_id}": ${steps.unbuildable}; leave the task out with --task, or the model out`,
      );
  }
  return source;
}

async function scriptedUpstreams(
  config: EndpointsConfig,
  plan: EndpointTrial[] = [],
  o: EndpointOptions = {},
) {
  const dir = config.scripts ?? DEFAULT_SCRIPTS_DIR;
  const scripts = await loadScripts(dir);
  const known = scripts.map((s) => s.model);
  const derived = await derivedFor(config, plan, o);
  const missing = config.models
    .filter((m) => m.provider === SCRIPTED && !known.includes(m.model) && !isDerived(m.model))
    .map((m) => m.model);
  if (missing.length)
    throw new UserError(
      'UNKNOWN_MODEL',
      `scripted model(s) ${missing.join(', ')} not found in ${dir} (available: ${known.join(', ')})`,
    );
  const unscripted = unscriptedTasks(scripts, plan);
  if (unscripted.length) {
    const first = unscripted[0];
    const more =
      unscripted.length > 1
        ? ` (and ${unscripted.length - 1} more: ${unscripted
            .slice(1, 4)
            .map((u) => `${u.model}/${u.task}`)
            .join(', ')})`
        : '';
    throw new UserError(
      'UNSCRIPTED_TASK',
      `scripted model "${first.model}" has no script for task "${first.task}"${more}: add a behaviour for it (or a "*") to its script in ${dir}, or leave the task out with --task`,
    );
  }
  const server = await startScriptedServer(scripts, {
    ...(derived && { derived: { serves: isDerived, steps: derived.steps } }),
  });
  const upstream = (baseUrl: string): Upstream => ({
    provider: SCRIPTED,
    kind: 'openai-compatible',
    baseUrl,
    acceptsTemperature: true,
    supportsStreamUsage: true,
    temperature: 0,
    headers: {},
  });
  const upstreamFor: UpstreamFor = (spec) => {
    // The trial starts: its task's behaviours are derived now unless the plan did it already.
    if (derived && isDerived(spec.model) && !isHarborLoaded(spec.task))
      derived.prepare(spec.task as LoadedTask<ResolvedTask>).catch(() => {});
    return { upstream: upstream(server.baseUrlFor(spec.task.task.task_id, spec.attempt)) };
  };
  const preflightFor: PreflightFor = (_provider, model) => ({
    upstream: upstream(server.preflightUrl()),
    keyFix: `scripted model "${model}" refuses every request: its script in ${dir} says "refuse"`,
  });
  return { upstreamFor, preflightFor, close: () => server.close() };
}

/** Declared providers: config file, provider, model and key are all checked up front. */
function declaredUpstreams(config: EndpointsConfig, names: string[]) {
  const file = config.providersConfig;
  if (!file)
    throw new UserError(
      'UNKNOWN_PROVIDER',
      `provider "${names[0]}" is not declared: pass --providers-config FILE (or create ./${DEFAULT_PROVIDERS_FILE}); "${SCRIPTED}" is built in`,
    );
  const decls = loadProvidersConfig(file);
  const byModel = new Map<string, { upstream: Upstream; price?: Price }>();
  const keyEnvs = new Map<string, string | undefined>();
  for (const m of config.models.filter((x) => names.includes(x.provider))) {
    const d = resolveUpstream(decls, file, m.provider, m.model);
    keyEnvs.set(m.provider, d.apiKeyEnv);
    const { apiKeyEnv: _name, price, ...rest } = d;
    byModel.set(`${m.provider}|${m.model}`, {
      upstream: { ...rest, apiKey: takeApiKey(d, file) },
      price,
    });
  }
  // A bad HTTPS_PROXY is a user error now, not an infra error in every trial.
  checkProxyEnv([...byModel.values()].map((v) => v.upstream.baseUrl));
  const upstreamFor: UpstreamFor = (spec) => byModel.get(`${spec.provider}|${spec.model}`)!;
  const preflightFor: PreflightFor = (provider, model) => {
    const routed = byModel.get(`${provider}|${model}`)!;
    const env = keyEnvs.get(provider);
    return {
      ...routed,
      keyFix: env
        ? `set ${env} to a key that provider "${provider}" accepts (declared in ${file})`
        : `provider "${provider}" in ${file} names no api_key_env: add the variable holding its key`,
    };
  };
  const secrets = [...byModel.values()].map((v) => v.upstream.apiKey);
  return { upstreamFor, preflightFor, secrets };
}

/** --replay: every planned trial must have a cassette. */
function replayIndex(dir: string, plan: EndpointTrial[] | undefined) {
  const index = indexCassettes(dir);
  const key = (s: EndpointTrial) =>
    cassetteKey({ task_id: s.task.task.task_id, mode: s.mode, attempt: s.attempt, model: s.model });
  const missing = (plan ?? []).filter((s) => !index.has(key(s)));
  if (missing.length)
    throw new UserError(
      'NO_CASSETTE',
      `--replay ${dir}: no cassette for ${missing.length} trial(s), e.g. task ${missing[0].task.task.task_id}, mode ${missing[0].mode}, attempt ${missing[0].attempt}, model ${missing[0].model}`,
    );
  return (spec: EndpointTrial) => {
    const hit = index.get(key(spec));
    if (!hit) throw new InfraError('replay', `no cassette for this trial under ${dir}`);
    // The agent speaks the recorded format: the proxy serves the recorded replies as they came.
    return {
      kind: kindOf(hit.header),
      replay: { file: hit.file, exchanges: loadCassette(hit.file).exchanges },
    };
  };
}

export async function startEndpoints(
  config: EndpointsConfig,
  llmAgent: boolean,
  plan?: EndpointTrial[],
  options: EndpointOptions = {},
): Promise<Endpoints> {
  if (!llmAgent) return NONE;
  const providers = [...new Set(config.models.map((m) => m.provider))];
  const closers: (() => Promise<void>)[] = [];
  let replayFor: ReturnType<typeof replayIndex> | undefined;
  const upstreams = new Map<string, UpstreamFor>();
  const preflights = new Map<string, PreflightFor>();
  let secrets: (string | undefined)[] = [];
  try {
    if (config.replay) replayFor = replayIndex(config.replay, plan);
    else {
      const declared = providers.filter((p) => p !== SCRIPTED);
      if (declared.length) {
        const d = declaredUpstreams(config, declared);
        for (const p of declared) {
          upstreams.set(p, d.upstreamFor);
          preflights.set(p, d.preflightFor);
        }
        secrets = d.secrets;
      }
      if (providers.includes(SCRIPTED)) {
        const s = await scriptedUpstreams(config, plan, options);
        upstreams.set(SCRIPTED, s.upstreamFor);
        preflights.set(SCRIPTED, s.preflightFor);
        closers.push(s.close);
      }
    }
    const proxy = await startProxy({ secrets: secrets.filter((k): k is string => Boolean(k)) });
    closers.push(proxy.close);
    const endpointFor = (spec: EndpointTrial, trial?: EndpointFor): ProxyTrial => {
      const o: TrialOptions = {
        provider: spec.provider,
        model: spec.model,
        tokenBudget: config.tokenBudget,
        requestBudget: config.requestBudget,
        ...(options.onRateLimit && {
          onRateLimit: (ms: number) => options.onRateLimit?.(spec.provider, ms),
        }),
        ...(trial?.gate && { gate: trial.gate }),
      };
      if (replayFor) Object.assign(o, replayFor(spec));
      else Object.assign(o, upstreams.get(spec.provider)!(spec));
      if (trial) {
        const file = config.record
          ? join(config.record, `${basename(trial.artifactsDir)}.jsonl`)
          : join(trial.artifactsDir, CASSETTE_FILE);
        const header: CassetteHeader = {
          type: 'nanobench-cassette',
          version: 1,
          task_id: spec.task.task.task_id,
          mode: spec.mode,
          attempt: spec.attempt,
          provider: spec.provider,
          model: spec.model,
          trial_key: spec.key,
          recorded_at: new Date().toISOString(),
          upstream: o.upstream ? safeUrl(o.upstream.baseUrl) : 'replay',
        };
        o.record = { file, header };
      }
      return proxy.openTrial(o);
    };
    // A replay calls no provider: nothing to check before it.
    const targets: PreflightTarget[] = replayFor
      ? []
      : uniquePairs(config).map(({ provider, model }) => {
          const { keyFix, ...routed } = preflights.get(provider)!(provider, model);
          return { provider, model, keyFix, options: { provider, model, ...routed } };
        });
    return {
      endpointFor,
      preflight: (log) => runPreflight(proxy, targets, log),
      close: async () => {
        for (const c of closers.reverse()) await c();
      },
    };
  } catch (e) {
    for (const c of closers.reverse()) await c();
    throw e;
  }
}

/** The run's (provider, model) pairs, each once: a run may one day span several providers. */
function uniquePairs(config: EndpointsConfig): { provider: string; model: string }[] {
  const seen = new Set<string>();
  return config.models.filter((m) => {
    const k = `${m.provider}\0${m.model}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

/** Every pair at once; a definite refusal of any of them stops the run in one line. */
async function runPreflight(
  proxy: ProviderProxy,
  targets: PreflightTarget[],
  log?: (line: string) => void,
): Promise<PreflightResult[]> {
  const results = await Promise.all(targets.map((t) => preflightOne(proxy, t)));
  const line = (r: PreflightResult) => describePreflight(r, targets[results.indexOf(r)]);
  const refused = results.filter(stopsTheRun);
  if (refused.length)
    throw new InfraError(
      'provider',
      `preflight: ${refused.map(line).join('; ')}; nothing was run`,
      refused[0].refusal,
    );
  for (const r of results) if (r.refusal || r.failure) log?.(`preflight: ${line(r)}`);
  return results;
}
