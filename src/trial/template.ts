// One trial, start to finish, for any kind of task (src/trial/kind.ts). Read this first: what a
// trial does is on this screen. Each stage returns or throws; any failure becomes a trial with
// status "error", a stage and a code (counted, shown, never scored). The teardown runs whatever
// happened, each step timed and guarded: a step that throws records its error, never the run's.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TrialEndpoint } from '../provider/endpoints.js';
import { DiskFullError, isDiskFull } from '../util/disk-full.js';
import { InfraError } from '../util/errors.js';
import { type AgentOutcome, agentFailure, runAgent } from './agent.js';
import { saveArtifacts } from './artifacts.js';
import type { TrialEnv } from './env.js';
import type { TeardownStep, TrialKind } from './kind.js';
import {
  addPhaseTime,
  emptyRecord,
  phase,
  recordAgent,
  recordAudit,
  recordError,
  recordGrade,
  settled,
  type TrialDraft,
  type TrialRecord,
} from './record.js';
import { type SlotStage, withSlot } from './slots.js';
import type { TrialSpec } from './spec.js';

/** provision -> agent -> settle the exit -> guard -> diff -> harden -> verify -> grade -> audit. */
export async function runTemplate(
  kind: TrialKind,
  spec: TrialSpec,
  env: TrialEnv,
): Promise<TrialRecord> {
  const o = openTrial(kind, spec, env);
  const { rec, t, ws, scratch } = o;
  const got: { endpoint?: TrialEndpoint; agent?: AgentOutcome; failure?: unknown } = {};
  try {
    mkdirSync(join(scratch, 'home'), { recursive: true });
    await phase(rec, 'provision', () => t.provision());
    got.endpoint = env.endpointFor?.(spec, {
      artifactsDir: o.artifactsDir,
      gate: gateOf(env, spec),
    });
    const trial = { spec, env, endpoint: got.endpoint, sandbox: t.sandbox, sessions: t.sessions };
    const a = await agentStage(rec, env, spec, got.endpoint, () => runAgent(t.agentInput(), trial));
    got.agent = a;
    const exit = settleExit(rec, a, got.endpoint, env.signal);
    await phase(rec, 'guard', () => t.guard(a));
    rec.files_changed = (await phase(rec, 'diff', () => t.diff(a))).files;
    await phase(rec, 'harden', () => t.harden(a));
    await held(rec, env, spec, 'verify', () => phase(rec, 'verify', () => t.verify()));
    recordGrade(rec, await phase(rec, 'score', () => t.grade(exit, a)));
    const where = { env, spec, ws, scratch };
    await phase(rec, 'audit', () => recordAudit(rec, where, t.audit, t.auditFacts(), a));
  } catch (e) {
    got.failure = e;
    recordError(rec, e);
  }
  const diskFull = await teardown(rec, [
    { name: 'endpoint', run: () => got.endpoint?.finish?.() }, // even when the agent threw
    { name: 'artifacts', run: () => saveArtifacts(o.artifactsDir, t.artifacts(got.agent)) },
    ...t.release(),
    { name: 'dirs', run: () => o.release() },
  ]);
  return closeTrial(o, isDiskFull(got.failure) ? got.failure : diskFull);
}

/**
 * Runs `fn` holding a slot of `stage`; none for a control (env.control: a PR task's golden control
 * runs inside its trial's verify slot, and taking one of its own could deadlock a full pool).
 */
function held<T>(
  rec: TrialDraft,
  env: TrialEnv,
  spec: TrialSpec,
  stage: SlotStage,
  fn: () => Promise<T>,
  until?: Promise<unknown>,
): Promise<T> {
  const slots = env.control ? undefined : env.slots;
  const waited = (ms: number) => {
    rec.details.slot_wait_ms = { ...rec.details.slot_wait_ms, [stage]: ms };
  };
  return withSlot(slots, stage, spec.provider, env.signal, waited, fn, until);
}

/** The trial's model requests wait for its provider's request slots, as its stages for theirs. */
const gateOf = (env: TrialEnv, spec: TrialSpec) =>
  env.control ? undefined : env.slots?.requestGate?.(spec.provider);

/**
 * The agent stage in its agent slot. An agent that talks to a model also holds a start slot from
 * its spawn to its first request: its start is CPU work, and many starting at once on a few cores
 * all finish late while the provider idles (src/run/slots.ts).
 */
function agentStage(
  rec: TrialDraft,
  env: TrialEnv,
  spec: TrialSpec,
  endpoint: TrialEndpoint | undefined,
  run: () => Promise<AgentOutcome>,
): Promise<AgentOutcome> {
  const started = () => {
    rec.details.agent_started_at = new Date().toISOString();
    return run();
  };
  const first = endpoint?.firstRequest;
  return held(rec, env, spec, 'agent', () =>
    phase(rec, 'agent', () => (first ? held(rec, env, spec, 'start', started, first) : started())),
  );
}

/** The trial's directories claimed, its record started, its kind's stages opened. */
function openTrial(kind: TrialKind, spec: TrialSpec, env: TrialEnv) {
  const started = Date.now();
  const { workspace: ws, scratch, release } = env.paths.claimTrialDirs(env.runId, spec.key);
  const artifactsDir = env.paths.artifacts(env.runId, spec.key);
  const rec = emptyRecord(env.runId, spec, new Date(started).toISOString(), artifactsDir);
  const t = kind.open({ spec, env, rec, ws, scratch, artifactsDir });
  return { started, env, rec, t, ws, scratch, artifactsDir, release };
}

/** The record, finished; a write that failed for want of space means nothing of it can be trusted. */
function closeTrial(o: ReturnType<typeof openTrial>, diskFull: unknown): TrialRecord {
  if (diskFull !== undefined) throw new DiskFullError(o.env.paths.root, diskFull);
  o.rec.finished_at = new Date().toISOString();
  o.rec.duration_ms = Date.now() - o.started;
  return settled(o.rec);
}

/**
 * The agent's exit as the scorer sees it, recorded; throws when the run was interrupted or the
 * harness or the provider, not the model, ended the agent.
 */
export function settleExit(
  rec: TrialDraft,
  a: AgentOutcome,
  endpoint: TrialEndpoint | undefined,
  signal: AbortSignal | undefined,
) {
  const exit = recordAgent(rec, a, endpoint);
  if (signal?.aborted) throw new InfraError('interrupted', 'run interrupted', 'interrupted');
  const failure = agentFailure(a, exit);
  if (failure) throw failure;
  return exit;
}

/**
 * Runs every step in order, whatever the ones before did: a step's error goes into
 * details.teardown_errors under its name (the outcome stands), and the whole is timed
 * (details.phase_ms.teardown). Returns a disk-full error when a step met one.
 */
export async function teardown(rec: TrialDraft, steps: TeardownStep[]): Promise<unknown> {
  const started = Date.now();
  let diskFull: unknown;
  for (const step of steps) {
    try {
      await step.run();
    } catch (e) {
      if (isDiskFull(e)) diskFull ??= e;
      const errors = rec.details.teardown_errors ?? {};
      errors[step.name] = (e as Error)?.message ?? String(e);
      rec.details.teardown_errors = errors;
    }
  }
  addPhaseTime(rec, 'teardown', Date.now() - started);
  return diskFull;
}
