// The trial's record: built here as a TrialDraft, one field group per stage, settled into a
// TrialRecord (a scored trial or an infra error) and stored as is (src/store/). Every stage's
// time goes into details.phase_ms; a failure becomes an infra error with a stage.
import { homedir } from 'node:os';
import type { ExitKind } from '../agent/types.js';
import type { Audit, AuditInput } from '../integrity/audit.js';
import { applyIntegrity } from '../integrity/flags.js';
import type { TrialEndpoint } from '../provider/endpoints.js';
import type { ConfidenceLevel, Label, RecordLabel } from '../score/labels.js';
import { InfraError } from '../util/errors.js';
import { PACKAGE_ROOT } from '../util/package-root.js';
import type { PreparedEnvironment } from '../workspace/environment.js';
import { type AgentOutcome, effectiveExit } from './agent.js';
import type { TrialDetails } from './details.js';
import type { TrialEnv } from './env.js';
import type { TrialSpec } from './spec.js';
import { isStage, type Stage, type TimedPhase } from './stages.js';

/** What every trial records, whatever its outcome. */
export interface TrialFacts {
  run_id: string;
  trial_key: string;
  task_id: string;
  agent: string;
  provider: string;
  model: string;
  mode: string;
  attempt: number;
  tests_passed: number;
  tests_failed: number;
  tests_total: number;
  files_changed: string[];
  flags: string[];
  exit_kind: ExitKind | null;
  timed_out: boolean;
  details: TrialDetails;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  artifacts_dir: string | null;
}

/** A scored trial's outcome: its score and label (none of the error's fields). */
export interface ScoredOutcome {
  status: 'scored';
  score: number;
  /** A stored record's may be one another version of the rules gave (OtherLabel). */
  label: RecordLabel;
  confidence_level: ConfidenceLevel;
  error: null;
  error_stage: null;
  error_code: null;
}

/** An infra error's outcome: never scored; where (stage) and what (code), and its message. */
export interface ErrorOutcome {
  status: 'error';
  score: null;
  label: null;
  confidence_level: null;
  /** "stage: message". */
  error: string;
  /**
   * src/trial/stages.ts STAGES; codes per stage. Null only in rows stored before migration 3
   * (src/store/migrations.ts), which kept the message alone.
   */
  error_stage: Stage | null;
  error_code: string | null;
}

export type RecordOutcome = ScoredOutcome | ErrorOutcome;
export type ScoredTrial = TrialFacts & ScoredOutcome;
export type ErrorTrial = TrialFacts & ErrorOutcome;

/**
 * A finished trial, as stored (src/store/, one column per field): scored or an infra error, the
 * status saying which fields hold what. Narrow on `status` before reading the outcome.
 */
export type TrialRecord = ScoredTrial | ErrorTrial;

/** A trial's outcome before any stage decided it: status "error", no error yet. */
interface NoOutcome {
  status: 'error';
  score: null;
  label: null;
  confidence_level: null;
  error: null;
  error_stage: null;
  error_code: null;
}

/**
 * The record a trial's stages write while it runs (recordAgent, recordGrade, recordError...):
 * its facts, and an outcome once the grade or an error gave one. settled() makes it a TrialRecord.
 */
export type TrialDraft = TrialFacts & (RecordOutcome | NoOutcome);

/** A trial record with no outcome yet: status "error" until the trial proves otherwise. */
export function emptyRecord(
  runId: string,
  spec: TrialSpec,
  startedAt: string,
  artifactsDir: string | null,
): TrialDraft {
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

/**
 * The finished record. The template always ends a trial with recordGrade or recordError, so a
 * draft with no outcome is a bug in it, thrown as such.
 */
export function settled(rec: TrialDraft): TrialRecord {
  if (rec.status === 'error' && rec.error === null)
    throw new Error(`internal: trial ${rec.trial_key} closed with no outcome`);
  return rec;
}

/** Adds `ms` to a timed phase of the record. */
export function addPhaseTime(rec: TrialDraft, name: TimedPhase, ms: number): void {
  const times = rec.details.phase_ms ?? {};
  times[name] = (times[name] ?? 0) + ms;
  rec.details.phase_ms = times;
}

/** Runs one phase: its time goes into the record, and any failure gets the phase's stage. */
export async function phase<T>(
  rec: TrialDraft,
  stage: Stage & TimedPhase,
  fn: () => T | Promise<T>,
): Promise<T> {
  const started = Date.now();
  try {
    return await fn();
  } catch (e) {
    throw asInfra(e, stage);
  } finally {
    addPhaseTime(rec, stage, Date.now() - started);
  }
}

/** Any failure as an InfraError with a trial stage: its own when it names one, else the phase's. */
export function asInfra(e: unknown, stage: Stage): InfraError {
  if (e instanceof InfraError)
    return isStage(e.stage)
      ? e
      : new InfraError(stage, e.message, e.code !== 'failed' ? e.code : `${e.stage}_failed`);
  return new InfraError('internal', `${stage}: ${(e as Error)?.message ?? String(e)}`, 'bug');
}

/** The trial ends as an infra error: never scored, its stage and code kept for the reports. */
export function recordError(rec: TrialDraft, e: unknown): void {
  const err = asInfra(e, 'internal');
  const outcome: ErrorOutcome = {
    status: 'error',
    score: null,
    label: null,
    confidence_level: null,
    error: `${err.stage}: ${err.message}`,
    error_stage: isStage(err.stage) ? err.stage : 'internal', // asInfra's always is
    error_code: err.code,
  };
  Object.assign(rec, outcome);
}

/** The container image a trial ran in, and whether this trial had to build it. */
export function environmentDetails(e: PreparedEnvironment) {
  return { image: e.id, ref: e.ref, built: e.built, build_ms: e.buildMs, workdir: e.workdir };
}

/** What the agent phase tells the record; returns the exit kind the scorer sees. */
export function recordAgent(rec: TrialDraft, a: AgentOutcome, endpoint?: TrialEndpoint): ExitKind {
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

/** What a task kind's grade gives the record: the outcome and what it was read from. */
export interface Grade {
  score: number;
  label: Label;
  confidenceLevel: ConfidenceLevel;
  /** Flags, in the order the record lists them. */
  flags: string[];
  tests?: { passed: number; failed: number; total: number };
  details: TrialDetails;
}

/** The trial is scored. */
export function recordGrade(rec: TrialDraft, g: Grade): void {
  const outcome: ScoredOutcome = {
    status: 'scored',
    score: g.score,
    label: g.label,
    confidence_level: g.confidenceLevel,
    error: null,
    error_stage: null,
    error_code: null,
  };
  Object.assign(rec, {
    ...outcome,
    ...(g.tests && {
      tests_passed: g.tests.passed,
      tests_failed: g.tests.failed,
      tests_total: g.tests.total,
    }),
  });
  rec.flags.push(...g.flags);
  Object.assign(rec.details, g.details);
}

/** What the audit reads of a trial besides the agent's own output: its guard and hardening. */
export type AuditFacts = Pick<AuditInput, 'guard' | 'infra'>;

/**
 * The audit phase of any trial: what the agent touched or named outside its place becomes
 * integrity flags on `rec` (and their evidence in details.integrity, unless integrity is off).
 */
export function recordAudit(
  rec: TrialDraft,
  t: { env: TrialEnv; spec: TrialSpec; ws: string; scratch: string },
  audit: (a: AuditInput) => Audit,
  facts: AuditFacts,
  a: AgentOutcome,
): void {
  const { env, spec } = t;
  const found = audit({
    ...facts,
    session: a.session,
    output: `${a.result.stdout}\n${a.result.stderr}`,
    protectedRoots: [
      env.paths.root,
      env.paths.cacheDir,
      spec.task.datasetDir,
      PACKAGE_ROOT,
      homedir(),
    ],
    allowed: [t.ws, t.scratch, ...a.session.readOnly],
  });
  if (env.integrity !== 'off' && Object.keys(found.evidence).length)
    rec.details.integrity = found.evidence;
  applyIntegrity(rec, found.flags, env.integrity ?? 'flag');
}
