// One trial of a Harbor task, through the same phases, store, reports and integrity flags as a
// PR task's (src/run/trial.ts), under a container sandbox:
//   provision  the environment image (built once, cached), its WORKDIR copied out once per image,
//              a fresh copy per trial; the judge, when the task has one
//   agent      instruction.md as the prompt, the workspace at WORKDIR; the oracle runs
//              solution/solve.sh (mounted at /solution for it alone); the judge's agent port
//   guard/diff escaping symlinks and special files removed; the change = workspace vs snapshot
//   harden     Python modules the agent added that shadow the standard library or site hooks
//              (sitecustomize, usercustomize, *.pth) removed; a fresh HOME for the verifier
//   verify     a fresh container of the image (nothing the agent did outside the workspace is
//              there), tests/ copied in only now at /tests, an empty /logs/verifier, bash
//              /tests/test.sh with the interpreter isolated (PYTHONSAFEPATH, PYTHONNOUSERSITE,
//              no PYTHONPATH or NODE_OPTIONS); the judge's verifier port and token
//   score      the reward is the score (src/harbor/reward.ts)
import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SOLUTION_MOUNT } from '../agent/controls.js';
import type { TrialEndpoint } from '../provider/endpoints.js';
import type { TrialSpec } from '../run/plan.js';
import {
  emptyRecord,
  environmentDetails,
  phase,
  recordAgent,
  recordAudit,
  recordError,
  type TrialEnv,
} from '../run/trial.js';
import { prepareEnvironment, resourcesOf } from '../run/trial-environment.js';
import { type AgentOutcome, agentFailure, DEFAULT_SERVICES } from '../run/trial-phases.js';
import type { TrialRecord } from '../store/store.js';
import type { LoadedTask } from '../task/load.js';
import { containedPath } from '../util/contained-path.js';
import { InfraError } from '../util/errors.js';
import { type RunResult, run } from '../util/process.js';
import { ctimeMark, walk } from '../verify/fs-tree.js';
import { sanitizeWorkspace } from '../verify/harden.js';
import { protectedModules, shadows } from '../verify/shadow.js';
import { withSession } from '../workspace/sandbox/session.js';
import type { Mount, SandboxDriver, SessionOptions } from '../workspace/sandbox/types.js';
import { containerGrader } from './judge/grader.js';
import { type Judge, startJudge } from './judge/server.js';
import { harborOutcome, readReward } from './reward.js';
import { type HarborTask, JudgeConfigSchema } from './task.js';
import { copyTree, ensureWorkdirSnapshot, readText, treeDiff } from './workspace.js';

type HarborSpec = TrialSpec & { task: LoadedTask<HarborTask> };

/** The verifier's interpreter sees nothing the agent could have put on its path. */
const ISOLATED_ENV = {
  PYTHONSAFEPATH: '1',
  PYTHONNOUSERSITE: '1',
  PYTHONDONTWRITEBYTECODE: '1',
  LANG: 'C.UTF-8',
  TZ: 'UTC',
  CI: '1',
  NO_COLOR: '1',
};

const TEST_COMMAND =
  'if command -v bash >/dev/null 2>&1; then exec bash /tests/test.sh; else exec sh /tests/test.sh; fi';

export async function runHarborTrial(spec: HarborSpec, env: TrialEnv): Promise<TrialRecord> {
  const started = new Date();
  const task = spec.task.task;
  const dirs = env.paths.claimTrialDirs(env.runId, spec.key);
  const { workspace: ws, scratch } = dirs;
  const artifactsDir = env.paths.artifacts(env.runId, spec.key);
  const rec = emptyRecord(env.runId, spec, started.toISOString(), artifactsDir);
  const sandbox = env.sandbox;
  let endpoint: TrialEndpoint | undefined;
  let judge: Judge | undefined;
  let agent: AgentOutcome | undefined;
  let patch: string | undefined;
  let tests: RunResult | undefined;
  try {
    mkdirSync(join(scratch, 'home'), { recursive: true });
    if (!sandbox?.container)
      throw new InfraError(
        'provision',
        `Harbor task ${task.task_id} runs in its environment image: use --sandbox podman (or docker)`,
        'needs_container',
      );
    const container = sandbox.container;
    const prov = await phase(rec, 'provision', async () => {
      const image = await prepareEnvironment(sandbox, spec.task, env.paths.cacheDir);
      const snapshot = await ensureWorkdirSnapshot(
        env.paths.cacheDir,
        container.engine,
        image!,
        task.task_id,
      );
      copyTree(snapshot, ws);
      if (task.judgeDir) judge = await startTaskJudge(task, sandbox, image!.id);
      return { image: image!, snapshot };
    });
    rec.details.env_reused = !prov.image.built;
    rec.details.environment = environmentDetails(prov.image);
    const base: Omit<SessionOptions, 'home' | 'tag'> = {
      workspace: ws,
      workdir: prov.image.workdir,
      runId: env.runId,
      image: prov.image.id,
      writableRoot: true,
      resources: resourcesOf(task),
    };

    endpoint = env.endpointFor?.(spec, { artifactsDir });
    agent = await phase(rec, 'agent', () =>
      agentPhase(spec, env, sandbox, base, scratch, endpoint, judge),
    );
    const exit = recordAgent(rec, agent, endpoint);
    if (env.signal?.aborted) throw new InfraError('interrupted', 'run interrupted', 'interrupted');
    const failure = agentFailure(agent, exit);
    if (failure) throw failure;

    const guard = await phase(rec, 'guard', () => sanitizeWorkspace(ws, prov.snapshot));
    const diff = await phase(rec, 'diff', () => treeDiff(prov.snapshot, ws));
    patch = diff.patch;
    rec.files_changed = diff.files;
    const verifyHome = join(scratch, 'verify-home');
    const harden = await phase(rec, 'harden', () => hardenHarbor(ws, prov.snapshot, verifyHome));
    const logs = join(`${scratch}-verifier`, 'logs');
    const verified = await phase(rec, 'verify', async () => {
      tests = await verifyPhase(task, sandbox, base, scratch, verifyHome, judge);
      rec.details.verifier = {
        exit_code: tests.exitCode,
        timed_out: tests.timedOut,
        ms: tests.durationMs,
      };
      // A grader that failed to grade a submission (or the final one): no reward means anything.
      const failed = judge?.graderFailure();
      if (failed)
        throw new InfraError(
          'grader',
          `judge/${failed.grader}.py ${failed.failure === 'timed_out' ? 'timed out' : 'failed'} on submission ${failed.submission}: ${failed.reason}`,
          failed.failure,
        );
      return readReward(logs);
    });
    const outcome = await phase(rec, 'score', () =>
      harborOutcome(verified, exit, diff.files.length),
    );
    Object.assign(rec, {
      status: 'scored',
      score: outcome.score,
      label: outcome.label,
      confidence_level: outcome.confidenceLevel,
    });
    if (agent.result.timedOut) rec.flags.push('timed_out');
    Object.assign(rec.details, {
      task_kind: 'harbor',
      reward: { value: verified.value, metrics: verified.metrics, file: verified.file },
      explanation: outcome.explanation,
      ...(judge && { judge: judge.state() }),
    });
    const a = agent;
    await phase(rec, 'audit', () =>
      recordAudit(rec, env, spec, DEFAULT_SERVICES.auditTrial, {
        guard: { ...guard, git: [], nestedGit: [] },
        infra: { touchedTests: [], touchedInfra: harden, resultFiles: [] },
        agent: a,
        ws,
        scratch,
      }),
    );
  } catch (e) {
    recordError(rec, e);
  } finally {
    endpoint?.finish?.();
    if (judge && rec.details.judge === undefined) rec.details.judge = judge.state();
    await judge?.close();
    try {
      saveArtifacts(artifactsDir, task.instruction, agent, patch, tests, judge);
    } catch {
      // artifacts are best effort; the record is what counts
    }
    if (!env.keepWorkspaces) rmSync(ws, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
    rmSync(`${scratch}-verifier`, { recursive: true, force: true });
    dirs.release();
  }
  rec.finished_at = new Date().toISOString();
  rec.duration_ms = Date.now() - started.getTime();
  return rec;
}

async function startTaskJudge(task: HarborTask, sandbox: SandboxDriver, agentImage: string) {
  const judgeDir = task.judgeDir!;
  const config = JudgeConfigSchema.parse(
    JSON.parse(readFileSync(join(judgeDir, 'judge.json'), 'utf8')),
  );
  const c = sandbox.container!;
  // The grader's own image when the task has one, else the agent's (judge/ is never in it).
  let image = agentImage;
  if (existsSync(join(judgeDir, 'Dockerfile'))) {
    const { ensureEnvironment } = await import('../workspace/environment.js');
    image = (
      await ensureEnvironment(
        c.engine,
        { dockerfile: join(judgeDir, 'Dockerfile'), context: judgeDir },
        { buildArgs: c.buildArgs },
      )
    ).id;
  }
  return startJudge({
    config,
    hasFinal: existsSync(join(judgeDir, 'final.py')),
    grade: containerGrader(c.engine, image, judgeDir, config.grader_timeout_sec),
  });
}

async function agentPhase(
  spec: HarborSpec,
  env: TrialEnv,
  sandbox: SandboxDriver,
  base: Omit<SessionOptions, 'home' | 'tag'>,
  scratch: string,
  endpoint: TrialEndpoint | undefined,
  judge: Judge | undefined,
): Promise<AgentOutcome> {
  const task = spec.task.task;
  const since = ctimeMark(scratch);
  const logsAgent = join(scratch, 'logs-agent');
  mkdirSync(logsAgent, { recursive: true });
  const mounts: Mount[] = [{ source: logsAgent, target: '/logs/agent' }];
  // The reference solution is the oracle's alone.
  if (env.agent.name === 'oracle' && task.solutionDir)
    mounts.push({ source: task.solutionDir, target: SOLUTION_MOUNT, readOnly: true });
  const judgeEnv = judge ? { JUDGE_URL: judge.agentUrl } : undefined;
  const r = await withSession(
    sandbox,
    {
      ...base,
      home: join(scratch, 'home'),
      writable: [scratch],
      tag: randomUUID(),
      endpoint,
      ...(judge && { extraEndpoints: [{ baseUrl: judge.agentUrl }] }),
      mounts,
      ...(judgeEnv && { env: judgeEnv }),
    },
    (session) =>
      env.agent.run({
        task,
        mode: spec.mode,
        prompt: task.instruction,
        workspace: base.workspace,
        scratchDir: scratch,
        timeoutSec: task.timeouts.agent_sec,
        provider: spec.provider,
        model: spec.model,
        attempt: spec.attempt,
        endpoint: endpoint && {
          baseUrl: endpoint.baseUrl,
          apiKey: endpoint.apiKey,
          kind: endpoint.kind,
        },
        ...(judgeEnv && { env: judgeEnv }),
        signal: env.signal,
        sandbox: session,
      }),
  );
  return { result: r.value, session: r.report, telemetry: endpoint?.finish?.(), since };
}

/** What the agent left in the workspace that would run inside the verifier's interpreter. */
function hardenHarbor(ws: string, snapshot: string, verifyHome: string): string[] {
  const removed: string[] = [];
  const before = new Set(walk(snapshot, (_r, n) => n === '.git').map((e) => e.rel));
  const modules = protectedModules();
  for (const e of walk(ws, (_r, n) => n === '.git' || n === 'node_modules')) {
    if (before.has(e.rel)) continue;
    const hook = /(^|\/)(sitecustomize|usercustomize)\.py$|\.pth$/.test(e.rel);
    if (hook || shadows(e.rel, e.type, ws, modules)) {
      rmSync(join(ws, e.rel), { recursive: true, force: true });
      removed.push(e.rel);
    }
  }
  rmSync(verifyHome, { recursive: true, force: true });
  mkdirSync(verifyHome, { recursive: true });
  return removed;
}

async function verifyPhase(
  task: HarborTask,
  sandbox: SandboxDriver,
  base: Omit<SessionOptions, 'home' | 'tag'>,
  scratch: string,
  verifyHome: string,
  judge: Judge | undefined,
): Promise<RunResult> {
  // Outside the scratch directory the agent could write to: made only now, empty.
  const dir = `${scratch}-verifier`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'logs'), { recursive: true });
  // Refused when the task was loaded; checked again where it is copied into the verifier.
  const tests = containedPath(
    task.dir,
    'tests',
    (why) => new InfraError('verify', `tests/ ${why}: not copied`, 'bad_test_path'),
    true,
  );
  cpSync(tests, join(dir, 'tests'), { recursive: true });
  const judgeEnv: Record<string, string> = judge
    ? { JUDGE_VERIFIER_URL: judge.verifierUrl, JUDGE_TOKEN: judge.token }
    : {};
  const r = await withSession(
    sandbox,
    {
      ...base,
      home: verifyHome,
      tag: randomUUID(),
      ...(judge && { extraEndpoints: [{ baseUrl: judge.verifierUrl }] }),
      mounts: [
        { source: join(dir, 'tests'), target: '/tests' },
        { source: join(dir, 'logs'), target: '/logs/verifier' },
      ],
      env: { ...task.config.verifier.env, ...judgeEnv, ...ISOLATED_ENV },
    },
    (session) => {
      const w = session.wrap('/bin/sh', ['-c', TEST_COMMAND]);
      return run(w.command, w.args, {
        cwd: base.workspace,
        env: { HOME: verifyHome },
        timeoutMs: task.timeouts.verifier_sec * 1000,
      });
    },
  );
  if (r.value.timedOut && readText(join(dir, 'logs', 'reward.txt')) === undefined)
    throw new InfraError(
      'verify',
      `tests/test.sh timed out after ${task.timeouts.verifier_sec}s without a reward`,
      'verifier_timeout',
    );
  return r.value;
}

function saveArtifacts(
  dir: string,
  prompt: string,
  agent: AgentOutcome | undefined,
  patch: string | undefined,
  tests: RunResult | undefined,
  judge: Judge | undefined,
): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'prompt.md'), prompt);
  if (agent) {
    writeFileSync(join(dir, 'agent.stdout'), agent.result.stdout);
    writeFileSync(join(dir, 'agent.stderr'), agent.result.stderr);
  }
  if (patch !== undefined) writeFileSync(join(dir, 'agent.diff'), patch);
  if (tests) {
    writeFileSync(join(dir, 'tests-harbor.stdout'), tests.stdout);
    writeFileSync(join(dir, 'tests-harbor.stderr'), tests.stderr);
  }
  if (judge) writeFileSync(join(dir, 'judge.json'), `${JSON.stringify(judge.state(), null, 2)}\n`);
}
