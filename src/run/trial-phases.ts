// The phases of one trial, each a function of what the phases before it produced. A phase either
// returns its product or throws an InfraError with a stage and a code; only a trial whose every
// harness phase succeeded reaches the scorer. The services a phase calls are passed in
// (TrialServices), so the lifecycle can be tested without git, sandboxes or test runners.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { exitKindWithProxy, type LastError, refusalIn } from '../agent/nanocoder-exit.js';
import { buildPrompt } from '../agent/prompt.js';
import type { FilesRead } from '../agent/tool-use.js';
import type { Agent, AgentResult, ExitKind } from '../agent/types.js';
import { type CriteriaVector, taskCriteria, testCriteriaVector } from '../contracts/criteria.js';
import { auditTrial, type GuardReport, guardWorkspace } from '../integrity/audit.js';
import type { TrialEndpoint } from '../provider/endpoints.js';
import { REFUSAL_TEXT } from '../provider/kinds.js';
import { type ScoreOutcome, score, type TargetTest } from '../score/rules.js';
import type { LoadedTask } from '../task/load.js';
import type { ResolvedTask } from '../task/patches.js';
import { InfraError, UserError } from '../util/errors.js';
import { GIT_ENV } from '../util/git.js';
import { ctimeMark } from '../verify/fs-tree.js';
import { type InfraReport, restoreInfrastructure } from '../verify/harden.js';
import { deadSuiteError, targetOutcome, type Verification, verify } from '../verify/verifier.js';
import type { ChangedPaths } from '../workspace/changes.js';
import { addedLines, type WorkspaceDiff, workspaceDiff } from '../workspace/diff.js';
import type { PreparedEnvironment } from '../workspace/environment.js';
import { type ProvisionResult, provision } from '../workspace/provision.js';
import { withSession } from '../workspace/sandbox/session.js';
import type { SandboxDriver, SessionReport } from '../workspace/sandbox/types.js';
import { resolveSource } from '../workspace/source.js';
import type { TrialSpec } from './plan.js';
import { unreported } from './task-control.js';
import type { TrialEnv } from './trial.js';
import { containerInstaller, prepareEnvironment, resourcesOf } from './trial-environment.js';

/**
 * Where a trial can fail. Harness phases in order, then whose fault it was when no phase is: the
 * provider's, the task's (its lists or its suites cannot grade it), a Harbor task's grader's,
 * and the two that can happen anywhere.
 */
export const STAGES = [
  'provision',
  'agent',
  'guard',
  'diff',
  'harden',
  'verify',
  'score',
  'audit',
  'provider',
  'task',
  'grader',
  'interrupted',
  'internal',
] as const;
export type Stage = (typeof STAGES)[number];

/** Stages that name a fault, not a phase of the trial. */
const FAULTS: readonly Stage[] = ['provider', 'task', 'grader', 'interrupted', 'internal'];

/** The phases a trial times (details.phase_ms), in the order it runs them. */
export const TIMED_PHASES = [...STAGES.filter((s) => !FAULTS.includes(s)), 'teardown'];

/** What the phases call; replaced in unit tests of the lifecycle. */
export interface TrialServices {
  provision: typeof provision;
  withSession: typeof withSession;
  guardWorkspace: typeof guardWorkspace;
  workspaceDiff: typeof workspaceDiff;
  restoreInfrastructure: typeof restoreInfrastructure;
  verify: typeof verify;
  score: typeof score;
  auditTrial: typeof auditTrial;
  /** Does `sym` occur in the repository at `base` (Level-4 symbol lookup)? */
  symbolAtBase: (ws: string, base: string) => (sym: string) => boolean;
  /** The agent of a task's golden control (src/run/task-control.ts); default the oracle. */
  goldenAgent?: Agent;
}

function gitSymbolAtBase(ws: string, base: string) {
  const cache = new Map<string, boolean>();
  return (sym: string): boolean => {
    if (!cache.has(sym)) {
      const r = spawnSync('git', ['grep', '-q', '-w', '-F', '-e', sym, base], {
        cwd: ws,
        env: GIT_ENV,
      });
      cache.set(sym, r.status === 0);
    }
    return cache.get(sym)!;
  };
}

export const DEFAULT_SERVICES: TrialServices = {
  provision,
  withSession,
  guardWorkspace,
  workspaceDiff,
  restoreInfrastructure,
  verify,
  score,
  auditTrial,
  symbolAtBase: gitSymbolAtBase,
};

/** Everything a trial's phases share: its coordinates, paths and the services. */
export interface TrialScope {
  spec: TrialSpec & { task: LoadedTask<ResolvedTask> };
  env: TrialEnv;
  task: ResolvedTask;
  ws: string;
  scratch: string;
  artifactsDir: string;
  sandbox: SandboxDriver;
  services: TrialServices;
  /** The overlay's upper layer, once provisioned on one (sandboxes chown only what it holds). */
  upper?: string;
  /** The container image of the trial's sessions (container sandboxes only; set by provision). */
  environment?: PreparedEnvironment;
}

/** What every session of the trial adds under a container sandbox: its image and limits. */
export function containerSession(s: TrialScope) {
  return s.environment ? { image: s.environment.id, resources: resourcesOf(s.task) } : {};
}

// ---- provision ----

export async function provisionPhase(s: TrialScope): Promise<ProvisionResult> {
  s.environment = await prepareEnvironment(s.sandbox, s.spec.task, s.env.paths.cacheDir);
  const prov = await s.services.provision(
    s.env.paths.cacheDir,
    s.task,
    resolveSource(s.spec.task, s.env.mirrorDir),
    s.ws,
    {
      mode: s.env.provision,
      owner: s.sandbox.user,
      signal: s.env.signal,
      runId: s.env.runId,
      environment:
        s.environment &&
        containerInstaller(s.sandbox, s.environment, {
          runId: s.env.runId,
          resources: resourcesOf(s.task),
        }),
    },
  );
  s.upper = prov.layers?.upper;
  return prov;
}

// ---- agent ----

export interface AgentOutcome {
  result: AgentResult;
  /** What the agent's sandbox session saw. */
  session: SessionReport;
  /** The provider proxy's account of the trial, when an LLM agent ran. */
  telemetry?: ReturnType<NonNullable<TrialEndpoint['finish']>>;
  /** ctime mark taken before the agent started (hardening finds what it touched after). */
  since: bigint;
}

export async function agentPhase(s: TrialScope, endpoint?: TrialEndpoint): Promise<AgentOutcome> {
  const since = ctimeMark(s.scratch);
  const { spec, task } = s;
  const run = await s.services.withSession(
    s.sandbox,
    {
      workspace: s.ws,
      workspaceUpper: s.upper,
      home: join(s.scratch, 'home'),
      writable: [s.scratch],
      endpoint,
      tag: randomUUID(),
      runId: s.env.runId,
      ...containerSession(s),
    },
    (session) =>
      s.env.agent.run({
        task,
        mode: spec.mode,
        prompt: buildPrompt(task, spec.mode),
        workspace: s.ws,
        scratchDir: s.scratch,
        timeoutSec: task.timeouts.agent_sec,
        provider: spec.provider,
        model: spec.model,
        attempt: spec.attempt,
        endpoint: endpoint && {
          baseUrl: endpoint.baseUrl,
          apiKey: endpoint.apiKey,
          kind: endpoint.kind,
        },
        signal: s.env.signal,
        sandbox: session,
      }),
  );
  return { result: run.value, session: run.report, telemetry: endpoint?.finish?.(), since };
}

/** The proxy's record of the reply the trial ended on, when that reply failed. */
function lastErrorOf(a: AgentOutcome): LastError | undefined {
  return (a.telemetry?.details as { last_error?: LastError } | undefined)?.last_error;
}

/**
 * The exit kind the scorer sees: the agent's own, unless it only said "error" and the proxy saw
 * the provider stop it (context length, or a refusal of service). Returns whether the proxy decided.
 */
export function effectiveExit(a: AgentOutcome): { kind: ExitKind; fromProxy: boolean } {
  const kind = exitKindWithProxy(a.result.exitKind, lastErrorOf(a));
  return { kind, fromProxy: kind !== a.result.exitKind };
}

/** The provider failure behind each exit kind the agent names, as the infra error's code. */
const PROVIDER_FAILURES: Partial<Record<ExitKind, string>> = {
  unreachable: 'unreachable',
  request_timeout: 'timeout',
  server_error: 'server_error',
  rate_limited: 'rate_limited',
  quota_exceeded: 'billing',
  auth_failed: 'auth',
  model_not_found: 'model_not_found',
};

/**
 * Why the provider, not the model, ended the trial: a refusal of service in the last reply the
 * proxy saw (its status code, in every wire format), else the agent's own words for one. The
 * proxy is asked whatever the agent's exit, a timeout included: NanoBench's agent limit can end
 * Nanocoder while it waits to retry a 429 or a 500, and that run said nothing about the model.
 * A context-length error is the model's (scoring rule 1), never a refusal.
 */
export function providerFailure(a: AgentOutcome, kind: ExitKind): InfraError | undefined {
  if (kind === 'success' || kind === 'context_exceeded') return undefined;
  const last = lastErrorOf(a);
  const refusal = last && refusalIn(last);
  const stderr = a.result.stderr.trim().split('\n').pop() ?? '';
  if (last && refusal)
    return new InfraError(
      'provider',
      `${REFUSAL_TEXT[refusal]} (HTTP ${last.status}): ${last.message || stderr}`,
      refusal,
    );
  const code = PROVIDER_FAILURES[kind];
  if (code)
    return new InfraError(
      'provider',
      `the agent stopped on a provider failure (${kind}): ${stderr}`,
      code,
    );
  return undefined;
}

/**
 * Harness and provider failures seen by the agent phase, as infrastructure errors: the agent
 * could not run properly, the provider refused or never answered, a replay ran out.
 */
export function agentFailure(a: AgentOutcome, kind: ExitKind): InfraError | undefined {
  if (a.result.infraError) return new InfraError('agent', a.result.infraError, 'agent_failed');
  const t = a.telemetry;
  if (t?.infraError) return new InfraError('provider', t.infraError, 'replay_exhausted');
  const upstream = (t?.details as { upstream_failure?: { code: string; message: string } })
    ?.upstream_failure;
  if (upstream) return new InfraError('provider', upstream.message, upstream.code);
  return providerFailure(a, kind);
}

/** What the agent changed, after the workspace was made safe for git. */
export interface Change {
  guard: GuardReport;
  diff: WorkspaceDiff;
}

// ---- harden and verify ----

export function hardenPhase(
  s: TrialScope,
  prov: ProvisionResult,
  since: bigint,
  changed?: ChangedPaths,
): InfraReport {
  return s.services.restoreInfrastructure(
    s.ws,
    prov.snapshotWs,
    s.task,
    since,
    join(s.scratch, 'verify-home'),
    changed,
  );
}

export async function verifyPhase(s: TrialScope, prov: ProvisionResult): Promise<Verification> {
  if (s.task.fail_to_pass.length === 0)
    throw new InfraError(
      'verify',
      `task ${s.task.task_id} has no fail_to_pass tests recorded; run "nanobench validate" on it`,
      'no_fail_to_pass',
    );
  // The suites run the agent's code: in the same sandbox, without the endpoint.
  const v = (
    await s.services.withSession(
      s.sandbox,
      {
        workspace: s.ws,
        workspaceUpper: s.upper,
        home: join(s.scratch, 'verify-home'),
        tag: randomUUID(),
        runId: s.env.runId,
        ...containerSession(s),
      },
      (session) =>
        s.services.verify(s.ws, prov.baselineTree, s.task, s.scratch, session.wrap.bind(session)),
    )
  ).value;
  const dead = deadSuiteError(v);
  if (dead) throw dead;
  return v;
}

// ---- score ----

export interface Graded {
  outcome: ScoreOutcome;
  failToPass: TargetTest[];
  passToPass: TargetTest[];
  /** Target ids no suite reported although their suite ran and reported (stale lists?). */
  missing: string[];
  /** The evaluator's criteria vector (src/contracts/criteria.ts); absent when they are invalid. */
  criteria?: CriteriaVector;
}

export function scorePhase(
  s: TrialScope,
  change: Change,
  v: Verification,
  agentExit: ExitKind,
  filesRead?: FilesRead,
): Graded {
  const targets = (ids: string[]) =>
    ids.map((id) => ({ id, suite: id.split('::')[0], ...targetOutcome(v, id) }));
  const failToPass = targets(s.task.fail_to_pass);
  const passToPass = targets(s.task.pass_to_pass);
  const { missing } = unreported(s.task, v);
  const outcome = s.services.score({
    mode: s.spec.mode,
    requiredFiles: s.task.required_files,
    filesChanged: change.diff.files,
    agentExit,
    failToPass,
    passToPass,
    suiteLanguages: Object.fromEntries(s.task.test_suites.map((x) => [x.name, x.language])),
    failureText: v.suites.map((x) => x.stderr).join('\n'),
    agentAddedLines: addedLines(change.diff.patch),
    existsAtBase: s.services.symbolAtBase(s.ws, s.task.base_commit),
    filesRead,
  });
  return {
    outcome,
    failToPass,
    passToPass,
    missing,
    criteria: criteriaOf(s.task, [...failToPass, ...passToPass]),
  };
}

/** The criteria vector of a graded trial; undefined when the task's criteria do not fit its lists. */
function criteriaOf(task: ResolvedTask, targets: TargetTest[]): CriteriaVector | undefined {
  const passed = new Map(targets.map((t) => [t.id, t.passed]));
  try {
    return testCriteriaVector(taskCriteria(task), (id) => passed.get(id) ?? false).vector;
  } catch (e) {
    if (e instanceof UserError) return undefined; // `nanobench contracts` names the problem
    throw e;
  }
}
