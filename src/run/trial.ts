// One trial, start to finish, as a template over its phases (src/run/trial-phases.ts). Any
// infrastructure failure becomes a trial with status "error", a stage and a code: counted,
// shown, never scored.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { buildPrompt } from '../agent/prompt.js';
import type { Agent, AgentResult, ExitKind } from '../agent/types.js';
import type { Audit, AuditInput } from '../integrity/audit.js';
import { applyIntegrity, type IntegrityMode } from '../integrity/flags.js';
import type { TrialEndpoint } from '../provider/endpoints.js';
import { SCORING_RULES_VERSION, type TargetTest } from '../score/rules.js';
import type { TrialRecord } from '../store/store.js';
import { isHarborLoaded, type LoadedTask } from '../task/load.js';
import type { ResolvedTask } from '../task/patches.js';
import { DiskFullError, isDiskFull } from '../util/disk-full.js';
import { InfraError } from '../util/errors.js';
import { PACKAGE_ROOT } from '../util/package-root.js';
import type { Verification } from '../verify/verifier.js';
import type { ChangedPaths } from '../workspace/changes.js';
import type { WorkspaceDiff } from '../workspace/diff.js';
import type { PreparedEnvironment } from '../workspace/environment.js';
import { type ProvisionMode, releaseWorkspace } from '../workspace/layers.js';
import { noneDriver } from '../workspace/sandbox/none.js';
import type { SandboxDriver } from '../workspace/sandbox/types.js';
import type { RunPaths } from './paths.js';
import type { TrialSpec } from './plan.js';
import { taskFault } from './task-control.js';
import {
  type AgentOutcome,
  agentFailure,
  agentPhase,
  type Change,
  DEFAULT_SERVICES,
  effectiveExit,
  type Graded,
  hardenPhase,
  provisionPhase,
  STAGES,
  type Stage,
  scorePhase,
  type TrialScope,
  type TrialServices,
  verifyPhase,
} from './trial-phases.js';

export interface TrialEnv {
  runId: string;
  paths: RunPaths;
  agent: Agent;
  mirrorDir?: string;
  keepWorkspaces: boolean;
  /** OpenAI-compatible endpoint for LLM agents, per trial (the NanoBench provider proxy). */
  endpointFor?: (spec: TrialSpec, trial: { artifactsDir: string }) => TrialEndpoint | undefined;
  signal?: AbortSignal;
  /** Where the agent and the test suites run (src/workspace/sandbox/); default: no isolation. */
  sandbox?: SandboxDriver;
  /** What integrity flags do (src/integrity/flags.ts); default "flag". */
  integrity?: IntegrityMode;
  /** How trial workspaces are made (src/workspace/layers.ts); default auto. */
  provision?: ProvisionMode;
  /** Replacements for the phases' services (unit tests of the lifecycle). */
  services?: Partial<TrialServices>;
  /**
   * This trial is a task's golden control (src/run/task-control.ts): what it leaves unreported
   * is the task's fault at once, never checked against another control.
   */
  control?: boolean;
}

function saveArtifacts(
  dir: string,
  prompt: string,
  agent?: AgentResult,
  diff?: WorkspaceDiff,
  v?: Verification,
): void {
  mkdirSync(dir, { recursive: true });
  // What the agent was asked, kept with its answer: the viewer shows it without the dataset.
  writeFileSync(join(dir, 'prompt.md'), prompt);
  if (agent) {
    writeFileSync(join(dir, 'agent.stdout'), agent.stdout);
    writeFileSync(join(dir, 'agent.stderr'), agent.stderr);
  }
  if (diff) writeFileSync(join(dir, 'agent.diff'), diff.patch);
  for (const s of v?.suites ?? []) {
    writeFileSync(join(dir, `tests-${s.name}.stdout`), s.stdout);
    writeFileSync(join(dir, `tests-${s.name}.stderr`), s.stderr);
  }
}

/** A trial record with no outcome yet: status "error" until the trial proves otherwise. */
export function emptyRecord(
  runId: string,
  spec: TrialSpec,
  startedAt: string,
  artifactsDir: string | null,
): TrialRecord {
  return {
    run_id: runId,
    trial_key: spec.key,
    task_id: spec.task.task.task_id,
    agent: spec.agent,
    provider: spec.provider,
    model: spec.model,
    mode: spec.mode,
    attempt: spec.attempt,
    status: 'error',
    score: null,
    label: null,
    confidence_level: null,
    tests_passed: 0,
    tests_failed: 0,
    tests_total: 0,
    files_changed: [],
    flags: [],
    exit_kind: null,
    timed_out: false,
    error: null,
    error_stage: null,
    error_code: null,
    details: {},
    started_at: startedAt,
    finished_at: startedAt,
    duration_ms: 0,
    artifacts_dir: artifactsDir,
  };
}

/** Runs one phase: its time goes into the record, and any failure gets the phase's stage. */
export async function phase<T>(
  rec: TrialRecord,
  stage: Stage,
  fn: () => T | Promise<T>,
): Promise<T> {
  const started = Date.now();
  try {
    return await fn();
  } catch (e) {
    throw asInfra(e, stage);
  } finally {
    const ms = (rec.details.phase_ms ?? {}) as Record<string, number>;
    ms[stage] = (ms[stage] ?? 0) + (Date.now() - started);
    rec.details.phase_ms = ms;
  }
}

/** Any failure as an InfraError with a trial stage: its own when it names one, else the phase's. */
export function asInfra(e: unknown, stage: Stage): InfraError {
  if (e instanceof InfraError)
    return (STAGES as readonly string[]).includes(e.stage)
      ? e
      : new InfraError(stage, e.message, e.code !== 'failed' ? e.code : `${e.stage}_failed`);
  return new InfraError('internal', `${stage}: ${(e as Error)?.message ?? String(e)}`, 'bug');
}

/** The trial ends as an infra error: never scored, its stage and code kept for the reports. */
export function recordError(rec: TrialRecord, e: unknown): void {
  const err = asInfra(e, 'internal');
  Object.assign(rec, {
    status: 'error',
    score: null,
    label: null,
    confidence_level: null,
    error: `${err.stage}: ${err.message}`,
    error_stage: err.stage,
    error_code: err.code,
  });
}

/**
 * The audit phase of any trial: what the agent touched or named outside its place becomes
 * integrity flags on `rec` (and their evidence in details.integrity, unless integrity is off).
 */
export function recordAudit(
  rec: TrialRecord,
  env: TrialEnv,
  spec: TrialSpec,
  audit: (a: AuditInput) => Audit,
  o: Pick<AuditInput, 'guard' | 'infra'> & { agent: AgentOutcome; ws: string; scratch: string },
): void {
  const a = o.agent;
  const found = audit({
    guard: o.guard,
    infra: o.infra,
    session: a.session,
    output: `${a.result.stdout}\n${a.result.stderr}`,
    protectedRoots: [
      env.paths.root,
      env.paths.cacheDir,
      spec.task.datasetDir,
      PACKAGE_ROOT,
      homedir(),
    ],
    allowed: [o.ws, o.scratch, ...a.session.readOnly],
  });
  if (env.integrity !== 'off' && Object.keys(found.evidence).length)
    rec.details.integrity = found.evidence;
  applyIntegrity(rec, found.flags, env.integrity ?? 'flag');
}

/**
 * One trial: provision -> agent -> guard + diff -> harden -> verify -> score -> audit. Each phase
 * returns its product or fails with a stage and a code; the trial is scored only when every
 * harness phase succeeded, and stored as an infra error (never scored) otherwise. Teardown
 * (stop the endpoint, save artifacts, remove the workspace) runs whatever happened.
 */
export async function runTrial(given: TrialSpec, env: TrialEnv): Promise<TrialRecord> {
  if (isHarborLoaded(given.task)) {
    const { runHarborTrial } = await import('../harbor/trial.js');
    return runHarborTrial({ ...given, task: given.task }, env);
  }
  const spec = given as TrialSpec & { task: LoadedTask<ResolvedTask> };
  const startedAt = new Date();
  const dirs = env.paths.claimTrialDirs(env.runId, spec.key);
  const scope: TrialScope = {
    spec,
    env,
    task: spec.task.task,
    ws: dirs.workspace,
    scratch: dirs.scratch,
    artifactsDir: env.paths.artifacts(env.runId, spec.key),
    sandbox: env.sandbox ?? noneDriver(),
    services: { ...DEFAULT_SERVICES, ...env.services },
  };
  const rec = emptyRecord(env.runId, spec, startedAt.toISOString(), scope.artifactsDir);
  let agent: AgentOutcome | undefined;
  let change: Change | undefined;
  let verification: Verification | undefined;
  let endpoint: TrialEndpoint | undefined;
  // Set when a write failed for want of space: then nothing of the trial can be trusted.
  let diskFull: unknown;
  try {
    mkdirSync(join(scope.scratch, 'home'), { recursive: true });
    const prov = await phase(rec, 'provision', () => provisionPhase(scope));
    rec.details.env_reused = prov.envReused;
    if (prov.layers)
      rec.details.provision = {
        mode: prov.layers.kind,
        ms: prov.provisionMs,
        ...(prov.layers.fallback && { fallback: prov.layers.fallback }),
      };
    if (scope.environment) rec.details.environment = environmentDetails(scope.environment);

    endpoint = env.endpointFor?.(spec, { artifactsDir: scope.artifactsDir });
    agent = await phase(rec, 'agent', () => agentPhase(scope, endpoint));
    const exit = recordAgent(rec, agent, endpoint);
    if (env.signal?.aborted) throw new InfraError('interrupted', 'run interrupted', 'interrupted');
    const failure = agentFailure(agent, exit);
    if (failure) throw failure;

    // Nothing of the agent runs any more: make the workspace safe for git, then diff it. On an
    // overlay, only what its upper layer holds can differ from the snapshot: look only there.
    let changed: ChangedPaths | undefined;
    const guard = await phase(rec, 'guard', () => {
      changed = prov.changes?.();
      return scope.services.guardWorkspace(scope.ws, prov.snapshotWs, prov.sourceClone, changed);
    });
    const diff = await phase(rec, 'diff', () =>
      scope.services.workspaceDiff(scope.ws, prov.baselineTree, changed),
    );
    change = { guard, diff };
    recordChange(rec, agent.result, change.diff);
    const infra = await phase(rec, 'harden', () => hardenPhase(scope, prov, agent!.since, changed));
    verification = await phase(rec, 'verify', () => verifyPhase(scope, prov));
    const v = verification;
    // A suite without a report or a target never named: the task's fault, or the agent's?
    const fault = await phase(rec, 'verify', () => taskFault(rec, spec, env, v));
    if (fault) throw fault;
    const read = agent.result.toolUse?.files_read;
    const graded = await phase(rec, 'score', () => scorePhase(scope, change!, v, exit, read));
    recordScore(rec, graded, v, agent.result.timedOut);
    const a = agent;
    const c = change;
    await phase(rec, 'audit', () =>
      recordAudit(rec, env, spec, scope.services.auditTrial, {
        guard: c.guard,
        infra,
        agent: a,
        ws: scope.ws,
        scratch: scope.scratch,
      }),
    );
  } catch (e) {
    if (isDiskFull(e)) diskFull = e;
    recordError(rec, e);
  } finally {
    const started = Date.now();
    endpoint?.finish?.(); // stop serving this trial even when the agent threw
    try {
      const prompt = buildPrompt(scope.task, spec.mode);
      saveArtifacts(scope.artifactsDir, prompt, agent?.result, change?.diff, verification);
    } catch (e) {
      // artifacts are best effort; the record is what counts, unless the disk is full
      if (isDiskFull(e)) diskFull ??= e;
    }
    try {
      // Unmounts an overlay too, whatever failed before: no trial leaves a mount behind.
      releaseWorkspace(scope.ws, { keep: env.keepWorkspaces });
    } catch (e) {
      // The outcome stands; a mount left behind is ended by the next resume (leftovers.ts).
      rec.details.teardown_error = (e as Error).message;
    }
    rmSync(scope.scratch, { recursive: true, force: true });
    dirs.release();
    const ms = (rec.details.phase_ms ?? {}) as Record<string, number>;
    rec.details.phase_ms = { ...ms, teardown: Date.now() - started };
  }
  if (diskFull !== undefined) throw new DiskFullError(env.paths.root, diskFull);
  rec.finished_at = new Date().toISOString();
  rec.duration_ms = Date.now() - startedAt.getTime();
  return rec;
}

/** The container image a trial ran in, and whether this trial had to build it. */
export function environmentDetails(e: PreparedEnvironment) {
  return { image: e.id, ref: e.ref, built: e.built, build_ms: e.buildMs, workdir: e.workdir };
}

/** What the agent phase tells the record; returns the exit kind the scorer sees. */
export function recordAgent(rec: TrialRecord, a: AgentOutcome, endpoint?: TrialEndpoint): ExitKind {
  const r = a.result;
  rec.details.sandbox = {
    kind: a.session.kind,
    containment: a.session.containment,
    limits: a.session.limits,
    ...(endpoint &&
      a.session.kind !== 'none' &&
      a.session.kind !== 'none-as-nobody' && {
        endpoint_connections: a.session.endpointConnections,
      }),
  };
  rec.timed_out = r.timedOut;
  Object.assign(rec.details, { agent_exit_code: r.exitCode, agent_ms: r.durationMs });
  if (r.meta) rec.details.agent_meta = r.meta;
  if (r.usage) rec.details.usage = r.usage;
  // What the agent did with its tools and which files it read (the context-reading signal).
  if (r.toolUse) {
    const { files_read, ...calls } = r.toolUse;
    rec.details.tool_calls = calls;
    rec.details.files_read = files_read;
  }
  // The proxy's account: tokens, requests, retries, latency, errors, temperature sent, cost.
  if (a.telemetry) {
    rec.details.proxy = a.telemetry.details;
    rec.flags.push(...a.telemetry.flags);
  }
  const exit = effectiveExit(a);
  if (exit.fromProxy) rec.flags.push('exit_kind_from_proxy');
  rec.exit_kind = exit.kind;
  return exit.kind;
}

function recordChange(rec: TrialRecord, r: AgentResult, diff: WorkspaceDiff): void {
  rec.files_changed = diff.files;
  if (r.reportedFilesChanged) {
    const reported = [...new Set(r.reportedFilesChanged)].sort();
    rec.details.reported_files_changed = reported;
    if (reported.join('\n') !== diff.files.join('\n')) rec.flags.push('files_changed_disagree');
  }
}

/** A failed target keeps (the start of) its message: why it failed, without the suite's output. */
const targetRecord = (t: TargetTest) => ({
  id: t.id,
  passed: t.passed,
  ...(!t.passed && t.message && { message: t.message.slice(0, 2000) }),
});

function recordScore(rec: TrialRecord, g: Graded, v: Verification, timedOut: boolean): void {
  const targets = [...g.failToPass, ...g.passToPass];
  Object.assign(rec, {
    status: 'scored',
    score: g.outcome.score,
    label: g.outcome.label,
    confidence_level: g.outcome.confidenceLevel,
    tests_passed: targets.filter((t) => t.passed).length,
    tests_failed: targets.filter((t) => !t.passed).length,
    tests_total: targets.length,
  });
  rec.flags.push(...g.outcome.flags);
  if (timedOut) rec.flags.push('timed_out');
  if (g.missing.length) {
    // The suite ran and reported, yet never mentioned these targets: the task's lists may be
    // stale (or name a test that never existed). Shown, not hidden inside the score.
    rec.flags.push('target_tests_missing');
    rec.details.missing_targets = { count: g.missing.length, ids: g.missing.slice(0, 20) };
  }
  Object.assign(rec.details, {
    scoring_rules_version: SCORING_RULES_VERSION,
    explanation: g.outcome.explanation,
    symbol: g.outcome.symbol,
    fail_to_pass: g.failToPass.map(targetRecord),
    pass_to_pass: g.passToPass.map(targetRecord),
    suites: v.suites.map((x) => ({
      name: x.name,
      status: x.status,
      exit_code: x.exitCode,
      timed_out: x.timedOut,
      ms: x.durationMs,
      tests: x.tests.length,
      fallback: x.fallback,
    })),
    verifier_ms: v.durationMs,
  });
  if (g.criteria) rec.details.criteria = g.criteria;
}
