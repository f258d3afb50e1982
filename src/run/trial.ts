// One trial, start to finish: provision -> agent -> diff -> verify -> score -> record.
// Any infrastructure failure becomes a trial with status "error": counted, shown, never scored.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { exitKindWithProxy } from '../agent/nanocoder-exit.js';
import { buildPrompt } from '../agent/prompt.js';
import type { Agent, AgentResult } from '../agent/types.js';
import { auditTrial, guardWorkspace } from '../integrity/audit.js';
import { applyIntegrity, type IntegrityMode } from '../integrity/flags.js';
import type { TrialEndpoint } from '../provider/endpoints.js';
import { score } from '../score/rules.js';
import type { TrialRecord } from '../store/store.js';
import { InfraError } from '../util/errors.js';
import { GIT_ENV } from '../util/git.js';
import { PACKAGE_ROOT } from '../util/package-root.js';
import { ctimeMark } from '../verify/fs-tree.js';
import { restoreInfrastructure } from '../verify/harden.js';
import { targetOutcome, type Verification, verify } from '../verify/verifier.js';
import { addedLines, type WorkspaceDiff, workspaceDiff } from '../workspace/diff.js';
import { provision } from '../workspace/provision.js';
import { noneDriver } from '../workspace/sandbox/none.js';
import { withSession } from '../workspace/sandbox/session.js';
import type { SandboxDriver } from '../workspace/sandbox/types.js';
import { resolveSource } from '../workspace/source.js';
import type { RunPaths } from './paths.js';
import type { TrialSpec } from './plan.js';

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
}

function symbolAtBase(ws: string, base: string) {
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

function saveArtifacts(
  dir: string,
  agent?: AgentResult,
  diff?: WorkspaceDiff,
  v?: Verification,
): void {
  mkdirSync(dir, { recursive: true });
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
    details: {},
    started_at: startedAt,
    finished_at: startedAt,
    duration_ms: 0,
    artifacts_dir: artifactsDir,
  };
}

export async function runTrial(spec: TrialSpec, env: TrialEnv): Promise<TrialRecord> {
  const { task } = spec.task;
  const startedAt = new Date();
  const ws = env.paths.workspace(env.runId, spec.key);
  const scratch = env.paths.scratch(env.runId, spec.key);
  const artifactsDir = env.paths.artifacts(env.runId, spec.key);
  const base = emptyRecord(env.runId, spec, startedAt.toISOString(), artifactsDir);
  const finish = (rec: TrialRecord): TrialRecord => {
    rec.finished_at = new Date().toISOString();
    rec.duration_ms = Date.now() - startedAt.getTime();
    return rec;
  };

  let agentResult: AgentResult | undefined;
  let diff: WorkspaceDiff | undefined;
  let verification: Verification | undefined;
  let endpoint: TrialEndpoint | undefined;
  try {
    mkdirSync(join(scratch, 'home'), { recursive: true });
    const prov = await provision(
      env.paths.cacheDir,
      task,
      resolveSource(spec.task, env.mirrorDir),
      ws,
    );
    base.details.env_reused = prov.envReused;

    endpoint = env.endpointFor?.(spec, { artifactsDir });
    const sandbox = env.sandbox ?? noneDriver();
    const since = ctimeMark(scratch);
    const agentRun = await withSession(
      sandbox,
      {
        workspace: ws,
        home: join(scratch, 'home'),
        writable: [scratch],
        endpoint,
        tag: randomUUID(),
      },
      (session) =>
        env.agent.run({
          task,
          mode: spec.mode,
          prompt: buildPrompt(task, spec.mode),
          workspace: ws,
          scratchDir: scratch,
          timeoutSec: task.timeouts.agent_sec,
          provider: spec.provider,
          model: spec.model,
          attempt: spec.attempt,
          endpoint: endpoint && { baseUrl: endpoint.baseUrl, apiKey: endpoint.apiKey },
          signal: env.signal,
          sandbox: session,
        }),
    );
    agentResult = agentRun.value;
    const sbx = agentRun.report;
    base.details.sandbox = {
      kind: sbx.kind,
      limits: sbx.limits,
      ...(endpoint && sbx.kind === 'bwrap' && { endpoint_connections: sbx.endpointConnections }),
    };
    base.exit_kind = agentResult.exitKind;
    base.timed_out = agentResult.timedOut;
    Object.assign(base.details, {
      agent_exit_code: agentResult.exitCode,
      agent_ms: agentResult.durationMs,
    });
    if (agentResult.meta) base.details.agent_meta = agentResult.meta;
    if (agentResult.usage) base.details.usage = agentResult.usage;
    // The proxy's account: tokens, requests, retries, latency, errors, temperature sent, cost.
    const telemetry = endpoint?.finish?.();
    if (telemetry) {
      base.details.proxy = telemetry.details;
      base.flags.push(...telemetry.flags);
      const lastError = (telemetry.details as { last_error?: { status: number; message: string } })
        .last_error;
      const kind = exitKindWithProxy(agentResult.exitKind, lastError);
      if (kind !== agentResult.exitKind) {
        base.exit_kind = kind;
        agentResult.exitKind = kind;
        base.flags.push('exit_kind_from_proxy');
      }
    }
    if (env.signal?.aborted) throw new InfraError('interrupted', 'run interrupted');
    if (agentResult.infraError) throw new InfraError('agent', agentResult.infraError);
    if (telemetry?.infraError) throw new InfraError('proxy', telemetry.infraError);

    // Nothing of the agent runs any more; make the workspace safe for git and file operations.
    const guard = guardWorkspace(ws, prov.snapshotWs, prov.sourceClone);
    diff = workspaceDiff(ws, prov.baselineTree);
    base.files_changed = diff.files;
    if (agentResult.reportedFilesChanged) {
      const reported = [...new Set(agentResult.reportedFilesChanged)].sort();
      base.details.reported_files_changed = reported;
      if (reported.join('\n') !== diff.files.join('\n')) base.flags.push('files_changed_disagree');
    }

    const verifyHome = join(scratch, 'verify-home');
    const infra = restoreInfrastructure(ws, prov.snapshotWs, task, since, verifyHome);
    // The suites run the agent's code: in the same sandbox, without the endpoint.
    verification = (
      await withSession(sandbox, { workspace: ws, home: verifyHome, tag: randomUUID() }, (s) =>
        verify(ws, prov.baselineTree, task, scratch, s.wrap.bind(s)),
      )
    ).value;
    if (task.fail_to_pass.length === 0)
      throw new InfraError(
        'verify',
        `task ${task.task_id} has no fail_to_pass tests recorded; run "nanobench validate" on it`,
      );
    const f2p = task.fail_to_pass.map((id) => ({
      id,
      suite: id.split('::')[0],
      ...targetOutcome(verification!, id),
    }));
    const p2p = task.pass_to_pass.map((id) => ({
      id,
      suite: id.split('::')[0],
      ...targetOutcome(verification!, id),
    }));
    const result = score({
      mode: spec.mode,
      requiredFiles: task.required_files,
      filesChanged: diff.files,
      agentExit: agentResult.exitKind,
      failToPass: f2p,
      passToPass: p2p,
      suiteLanguages: Object.fromEntries(task.test_suites.map((s) => [s.name, s.language])),
      failureText: verification.suites.map((s) => s.stderr).join('\n'),
      agentAddedLines: addedLines(diff.patch),
      existsAtBase: symbolAtBase(ws, task.base_commit),
    });
    const targets = [...f2p, ...p2p];
    Object.assign(base, {
      status: 'scored',
      score: result.score,
      label: result.label,
      confidence_level: result.confidenceLevel,
      tests_passed: targets.filter((t) => t.passed).length,
      tests_failed: targets.filter((t) => !t.passed).length,
      tests_total: targets.length,
    });
    base.flags.push(...result.flags);
    if (agentResult.timedOut) base.flags.push('timed_out');
    Object.assign(base.details, {
      explanation: result.explanation,
      symbol: result.symbol,
      fail_to_pass: f2p.map((t) => ({ id: t.id, passed: t.passed })),
      pass_to_pass: p2p.map((t) => ({ id: t.id, passed: t.passed })),
      suites: verification.suites.map((s) => ({
        name: s.name,
        status: s.status,
        exit_code: s.exitCode,
        timed_out: s.timedOut,
        ms: s.durationMs,
        tests: s.tests.length,
        fallback: s.fallback,
      })),
      verifier_ms: verification.durationMs,
    });
    const audit = auditTrial({
      guard,
      infra,
      session: sbx,
      output: `${agentResult.stdout}\n${agentResult.stderr}`,
      protectedRoots: [
        env.paths.root,
        env.paths.cacheDir,
        spec.task.datasetDir,
        PACKAGE_ROOT,
        homedir(),
      ],
      allowed: [ws, scratch, ...sbx.readOnly],
    });
    if (env.integrity !== 'off' && Object.keys(audit.evidence).length)
      base.details.integrity = audit.evidence;
    applyIntegrity(base, audit.flags, env.integrity ?? 'flag');
  } catch (e) {
    if (!(e instanceof InfraError) && !(e instanceof Error)) throw e;
    base.status = 'error';
    base.error = e instanceof InfraError ? `${e.stage}: ${e.message}` : `internal: ${e.message}`;
  } finally {
    endpoint?.finish?.(); // stop serving this trial even when the agent threw
    try {
      saveArtifacts(artifactsDir, agentResult, diff, verification);
    } catch {
      // artifacts are best effort; the record is what counts
    }
    if (!env.keepWorkspaces) rmSync(ws, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }
  return finish(base);
}
