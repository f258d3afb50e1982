// Run configuration: what the user asked for, resolved into one frozen object that is stored
// with the run (so --resume can rebuild exactly the same plan). Never holds secrets.
import { existsSync } from 'node:fs';
import { availableParallelism, freemem } from 'node:os';
import { resolve } from 'node:path';
import { AGENTS, agentEntry, agentList, agentNames } from '../agent/agents.js';
import type { Mode } from '../agent/types.js';
import { INTEGRITY_MODES, type IntegrityMode } from '../integrity/flags.js';
import {
  agentsFor,
  DEFAULT_PROVIDERS_FILE,
  declaredProviderNames,
  HOSTED_REQUEST_SLOTS,
  providerConcurrency,
  SCRIPTED,
} from '../provider/providers-config.js';
import { resolveDatasetArg } from '../task/registry.js';
import { UserError } from '../util/errors.js';
import { PROVISION_MODES, type ProvisionMode } from '../workspace/layers.js';
import { SANDBOX_MODES, type SandboxMode } from '../workspace/sandbox/types.js';
import type { ModelRef } from './plan.js';
import { parseShard, type Shard } from './shard.js';

/**
 * Every default of a run, in one place: the CLI's option defaults, the resolution below and the
 * reading of runs stored before a field existed (src/run/stored-config.ts) all take them from here.
 */
export const RUN_DEFAULTS = Object.freeze({
  agent: 'nanocoder',
  provider: 'scripted',
  mode: 'hinted',
  /** As many trials at once as the machine takes (autoConcurrency). */
  concurrency: 'auto',
  sandbox: 'auto' as SandboxMode,
  integrity: 'flag' as IntegrityMode,
  provision: 'auto' as ProvisionMode,
});

/** Memory one trial may need at once (its suite, or an agent and its tools). */
const TRIAL_MEMORY = 2 * 1024 ** 3;

/**
 * `--concurrency auto`: one trial per core, as far as the available memory allows. Most of a trial
 * is its test suite, and suites that wait on the disk or on single-threaded work leave a core to
 * the next trial (measured: npm run bench:trial). A suite that runs its own workers on every core
 * gains nothing from more: give it --concurrency 1.
 */
export function autoConcurrency(): number {
  return Math.max(1, Math.min(availableParallelism(), Math.floor(freemem() / TRIAL_MEMORY)));
}

/** Memory an agent waiting on its model holds (Nanocoder's Node process and its tools). */
const AGENT_MEMORY = 512 * 1024 ** 2;

/**
 * `--concurrency auto` for an agent that waits on its model: every agent slot of the run's
 * providers busy, and two trials per core beside them (provisioning, verifying, tearing down).
 * Each trial in flight holds one prepared workspace and, while its agent runs, one agent process:
 * memory bounds the count too.
 */
export function autoModelConcurrency(agentSlots: number): number {
  const wanted = agentSlots + 2 * availableParallelism();
  const memory = Math.max(autoConcurrency(), Math.floor(freemem() / AGENT_MEMORY));
  return Math.max(1, Math.min(MAX_CONCURRENCY, wanted, memory));
}

export interface RunConfig {
  datasets: string[];
  agent: string;
  models: ModelRef[];
  modes: Mode[];
  runs?: number;
  concurrency: number;
  mirror?: string;
  keepWorkspaces: boolean;
  taskIds?: string[];
  /** Directory relative command agents were resolved against. */
  cwd: string;
  /** Nanocoder build (checkout dir or cli.js) when not the pinned dependency. */
  nanocoder?: string;
  /** Node binary for Nanocoder. */
  node?: string;
  /** Directory of scripted-model scripts, for --provider scripted. */
  scripts?: string;
  /** Run only this deterministic slice of the plan (src/run/shard.ts). */
  shard?: Shard;
  /** Redis URL: enqueue the trials for `nanobench worker`s instead of running them here. */
  queue?: string;
  /** NanoBench providers file (names key variables, never keys). */
  providersConfig?: string;
  /** Write cassettes here instead of each trial's artifacts directory. */
  record?: string;
  /** Serve trials from the cassettes under this directory; no provider is called. */
  replay?: string;
  /** Per-trial budgets enforced by the provider proxy. */
  tokenBudget?: number;
  requestBudget?: number;
  /** Isolation asked for (absent in runs stored before it existed: auto). */
  sandbox?: SandboxMode;
  /** What integrity flags do (absent: flag). */
  integrity?: IntegrityMode;
  /** How trial workspaces are made (absent: auto). Not part of what a run measures. */
  provision?: ProvisionMode;
  /** Also run tasks still calibrating (their trials are calibration observations). */
  calibrating?: boolean;
  /** Container sandboxes: the image of tasks that declare no environment. */
  image?: string;
  /** Container sandboxes: NAME=VALUE arguments of every environment build. */
  buildArgs?: string[];
}

export interface RunOptionsInput {
  agent: string;
  provider?: string;
  model?: string[];
  mode?: string;
  runs?: string;
  concurrency?: string;
  mirror?: string;
  keepWorkspaces?: boolean;
  task?: string[];
  nanocoder?: string;
  node?: string;
  scripts?: string;
  shard?: string;
  queue?: string;
  providersConfig?: string;
  record?: string;
  replay?: string;
  tokenBudget?: string;
  requestBudget?: string;
  sandbox?: string;
  integrity?: string;
  provision?: string;
  calibrating?: boolean;
  image?: string;
  buildArg?: string[];
}

/** Runs per task at most: more is a typo (1e9 planned trials exhaust memory before any runs). */
export const MAX_RUNS = 1000;
/** Trials at once, at most (in one process, or per worker). */
export const MAX_CONCURRENCY = 256;

/**
 * An integer option from `min` to `max`, in decimal digits only: Number() also reads "0x10",
 * "1e3", " 16 " and "" (as 0), which no one means as a count. Unbounded options still stop at a
 * safe integer.
 */
export function intOption(value: string, flag: string, min = 1, max?: number): number {
  const decimal = /^[0-9]+$/.test(value);
  const n = decimal ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || (max !== undefined && n > max))
    throw new UserError(
      'BAD_OPTION',
      `${
        max === undefined
          ? `${flag} must be a positive integer, got "${value}"`
          : `${flag} must be an integer from ${min} to ${max}, got "${value}"`
      }${decimal || /^-[0-9]+$/.test(value) ? '' : ' (decimal digits only)'}`,
    );
  return n;
}

function positiveInt(value: string | undefined, flag: string, max?: number): number | undefined {
  return value === undefined ? undefined : intOption(value, flag, 1, max);
}

/** `--provision`: how trial workspaces are made (src/workspace/layers.ts). */
export const parseProvision = (value: string | undefined): ProvisionMode =>
  oneOf(value ?? RUN_DEFAULTS.provision, PROVISION_MODES, '--provision');

/** `--concurrency`: a number, or auto (the default). */
export function resolveConcurrency(value: string | undefined): number {
  if (value === undefined || value === 'auto') return autoConcurrency();
  return intOption(value, '--concurrency', 1, MAX_CONCURRENCY);
}

export function parseModes(mode: string | undefined): Mode[] {
  switch (mode ?? RUN_DEFAULTS.mode) {
    case 'hinted':
      return ['hinted'];
    case 'navigation':
      return ['navigation'];
    case 'both':
      return ['hinted', 'navigation'];
    default:
      throw new UserError('BAD_OPTION', `--mode must be hinted, navigation or both, got "${mode}"`);
  }
}

/** Agents that talk to a model: `--sandbox auto` never runs them unsandboxed. */
export const isLlmAgent = (agent: string) =>
  agentNames(agent).some((a) => agentEntry(a)?.kind === 'llm');

/** Each agent of an --agent value is known, and several are all LLM agents or none. */
function checkAgents(value: string): void {
  const names = agentNames(value);
  for (const a of names) {
    if (!agentEntry(a))
      throw new UserError('BAD_AGENT', `--agent must be ${agentList()}, got "${a}"`);
    if (a === 'command:')
      throw new UserError('BAD_AGENT', '--agent command: needs a shell command after the colon');
  }
  if (new Set(names).size !== names.length)
    throw new UserError('BAD_AGENT', `--agent ${value} names an agent twice`);
  const llm = names.filter((a) => agentEntry(a)?.kind === 'llm');
  if (names.length > 1 && llm.length !== names.length)
    throw new UserError(
      'BAD_AGENT',
      `--agent ${value}: several agents are compared on the same models, so each must be an LLM agent (${AGENTS.filter(
        (a) => a.kind === 'llm',
      )
        .map((a) => a.name)
        .join(', ')})`,
    );
}

export function resolveRunConfig(datasets: string[], o: RunOptionsInput): RunConfig {
  if (datasets.length === 0)
    throw new UserError(
      'NO_DATASET',
      'name at least one dataset directory or task file (e.g. "nanobench run examples")',
    );
  const agent = o.agent;
  checkAgents(agent);
  let models: ModelRef[];
  const proxy = proxyOptions(agent, o);
  if (isLlmAgent(agent)) {
    // A model named twice would plan the same trials twice (one of each pair silently dropped).
    const names = [...new Set((o.model ?? []).flatMap((m) => m.split(',')).filter(Boolean))];
    if (names.length === 0)
      throw new UserError('NO_MODEL', `--agent ${agent} needs --model NAME (one or more)`);
    models = parseModels(names, o.provider, declaredProviderNames(proxy.providersConfig));
  } else {
    if (o.model?.length)
      throw new UserError(
        'BAD_OPTION',
        `--model applies only to LLM agents (nanocoder, bare), not to ${agent}`,
      );
    models = [{ provider: 'none', model: 'none' }];
  }
  return {
    datasets: datasets.map(resolveDatasetArg),
    agent,
    models,
    modes: parseModes(o.mode),
    runs: positiveInt(o.runs, '--runs', MAX_RUNS),
    concurrency:
      isLlmAgent(agent) && (o.concurrency ?? RUN_DEFAULTS.concurrency) === 'auto'
        ? autoModelConcurrency(agentSlotTotal(models, proxy.providersConfig))
        : resolveConcurrency(o.concurrency),
    mirror: o.mirror ? resolve(o.mirror) : undefined,
    keepWorkspaces: Boolean(o.keepWorkspaces),
    taskIds: o.task?.flatMap((t) => t.split(',')).filter(Boolean),
    cwd: process.cwd(),
    nanocoder: o.nanocoder ? resolve(o.nanocoder) : undefined,
    node: o.node ? resolve(o.node) : undefined,
    scripts: o.scripts ? resolve(o.scripts) : undefined,
    shard: o.shard !== undefined ? parseShard(o.shard) : undefined,
    queue: o.queue !== undefined ? parseQueueUrl(o.queue) : undefined,
    sandbox: oneOf(o.sandbox ?? RUN_DEFAULTS.sandbox, SANDBOX_MODES, '--sandbox'),
    integrity: oneOf(o.integrity ?? RUN_DEFAULTS.integrity, INTEGRITY_MODES, '--integrity'),
    provision: parseProvision(o.provision),
    ...(o.calibrating && { calibrating: true }),
    ...containerOptions(o),
    ...proxy,
  };
}

/**
 * --model names: "provider:model" names its provider (scripted, or one the providers file
 * declares), so one run can span providers; any other name is a model of --provider (default
 * scripted), colons and all ("llama3:8b" of --provider ollama). Each pair once, in the order given.
 */
export function parseModels(
  names: string[],
  provider: string | undefined,
  declared: string[],
): ModelRef[] {
  const known = new Set([SCRIPTED, ...declared]);
  const seen = new Set<string>();
  return names.flatMap((name) => {
    const i = name.indexOf(':');
    const qualified = i > 0 && known.has(name.slice(0, i));
    const m = qualified
      ? { provider: name.slice(0, i), model: name.slice(i + 1) }
      : { provider: provider ?? RUN_DEFAULTS.provider, model: name };
    if (!m.model)
      throw new UserError('BAD_OPTION', `--model "${name}": no model after the provider`);
    const key = `${m.provider}\0${m.model}`;
    if (seen.has(key)) return [];
    seen.add(key);
    return [m];
  });
}

/** The agent slots of the run's providers, summed (each provider once): src/run/slots.ts. */
function agentSlotTotal(models: ModelRef[], providersConfig: string | undefined): number {
  const limits = providerConcurrency(providersConfig);
  const providers = [...new Set(models.map((m) => m.provider))];
  return providers.reduce((n, p) => n + agentsFor(limits.get(p) ?? HOSTED_REQUEST_SLOTS), 0);
}

/** --image and --build-arg belong to the container sandboxes. */
function containerOptions(o: RunOptionsInput): Pick<RunConfig, 'image' | 'buildArgs'> {
  const container = o.sandbox === 'podman' || o.sandbox === 'docker';
  const given = o.image !== undefined ? '--image' : o.buildArg?.length ? '--build-arg' : undefined;
  if (given && !container)
    throw new UserError(
      'BAD_OPTION',
      `${given} applies to the container sandboxes only (--sandbox podman or docker)`,
    );
  const bad = o.buildArg?.find((a) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(a));
  if (bad) throw new UserError('BAD_OPTION', `--build-arg must be NAME=VALUE, got "${bad}"`);
  return {
    ...(o.image !== undefined && { image: o.image }),
    ...(o.buildArg?.length && { buildArgs: o.buildArg }),
  };
}

/** Options of the provider proxy; they only make sense for LLM agents. */
function proxyOptions(agent: string, o: RunOptionsInput) {
  const flags: [keyof RunOptionsInput, string][] = [
    ['record', '--record'],
    ['replay', '--replay'],
    ['tokenBudget', '--token-budget'],
    ['requestBudget', '--request-budget'],
  ];
  const given = flags.find(([k]) => o[k] !== undefined);
  if (given && !isLlmAgent(agent))
    throw new UserError('BAD_OPTION', `${given[1]} applies only to LLM agents (nanocoder, bare)`);
  const file = o.providersConfig ?? DEFAULT_PROVIDERS_FILE;
  // Named but missing: refused even when this run would not read it (a typo must not pass).
  if (o.providersConfig !== undefined && !existsSync(file))
    throw new UserError('BAD_OPTION', `--providers-config ${file}: no such file`);
  const providersConfig =
    o.providersConfig !== undefined || existsSync(file) ? resolve(file) : undefined;
  return {
    providersConfig,
    record: o.record !== undefined ? resolve(o.record) : undefined,
    replay: o.replay !== undefined ? resolve(o.replay) : undefined,
    tokenBudget: positiveInt(o.tokenBudget, '--token-budget'),
    requestBudget: positiveInt(o.requestBudget, '--request-budget'),
  };
}

export function oneOf<T extends string>(value: string, allowed: readonly T[], flag: string): T {
  if (!(allowed as readonly string[]).includes(value))
    throw new UserError('BAD_OPTION', `${flag} must be ${allowed.join(', ')}, got "${value}"`);
  return value as T;
}

export function parseQueueUrl(url: string): string {
  if (!/^rediss?:\/\/[^/\s]+/.test(url))
    throw new UserError(
      'BAD_OPTION',
      `--queue must be a Redis URL such as redis://127.0.0.1:6379, got "${url}"`,
    );
  return url;
}
