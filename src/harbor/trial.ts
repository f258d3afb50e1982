// A Harbor task as a kind of trial (src/trial/kind.ts), under a container sandbox:
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
//   grade      the reward is the score (src/harbor/reward.ts)
// Its services are passed in (harborKind(services)), so test/harbor/trial-lifecycle.test.ts
// runs the lifecycle on fakes.
import { randomUUID } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { SOLUTION_MOUNT } from '../agent/controls.js';
import type { ExitKind } from '../agent/types.js';
import { auditTrial } from '../integrity/audit.js';
import { type HarborTask, JudgeConfigSchema } from '../task/harbor.js';
import type { LoadedTask } from '../task/load.js';
import type { AgentOutcome } from '../trial/agent.js';
import { prepareEnvironment, resourcesOf } from '../trial/environment.js';
import type { KindTrial, TrialContext, TrialKind } from '../trial/kind.js';
import { environmentDetails } from '../trial/record.js';
import type { TrialSpec } from '../trial/spec.js';
import { containedPath } from '../util/contained-path.js';
import { InfraError } from '../util/errors.js';
import { ctimeMark, walk } from '../util/fs-tree.js';
import { type RunResult, run } from '../util/process.js';
import { sanitizeWorkspace } from '../verify/harden.js';
import { protectedModules, shadows } from '../verify/shadow.js';
import { withSession } from '../workspace/sandbox/session.js';
import type { Mount, SandboxDriver, SessionOptions } from '../workspace/sandbox/types.js';
import { containerGrader } from './judge/grader.js';
import { type Judge, startJudge } from './judge/server.js';
import { harborOutcome, type Reward, readReward } from './reward.js';
import { copyTree, ensureWorkdirSnapshot, readText, treeDiff } from './workspace.js';

type HarborSpec = TrialSpec & { task: LoadedTask<HarborTask> };

/** What a Harbor trial calls; replaced in unit tests of its lifecycle. */
export interface HarborServices {
  prepareEnvironment: typeof prepareEnvironment;
  workdirSnapshot: typeof ensureWorkdirSnapshot;
  startJudge: (task: HarborTask, sandbox: SandboxDriver, image: string) => Promise<Judge>;
  withSession: typeof withSession;
  /** Runs the verifier's command (tests/test.sh) as its session wraps it. */
  run: typeof run;
  auditTrial: typeof auditTrial;
}

export const HARBOR_SERVICES: HarborServices = {
  prepareEnvironment,
  workdirSnapshot: ensureWorkdirSnapshot,
  startJudge: startTaskJudge,
  withSession,
  run,
  auditTrial,
};

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

type BaseSession = Omit<SessionOptions, 'home' | 'tag'>;

export function harborKind(given: Partial<HarborServices> = {}): TrialKind {
  const services = { ...HARBOR_SERVICES, ...given };
  return { name: 'harbor', open: (t) => new HarborTrial(t, services) };
}

class HarborTrial implements KindTrial {
  readonly sandbox: SandboxDriver;
  readonly sessions: KindTrial['sessions'];
  readonly audit: KindTrial['audit'];
  private readonly task: HarborTask;
  private readonly verifyHome: string;
  /** Outside the scratch directory the agent could write to. */
  private readonly verifierDir: string;
  private judge?: Judge;
  private snapshot!: string;
  private base!: BaseSession;
  private guardReport!: ReturnType<typeof sanitizeWorkspace>;
  private removed: string[] = [];
  private change?: { files: string[]; patch: string };
  private tests?: RunResult;
  private reward!: Reward;

  constructor(
    private readonly t: TrialContext,
    private readonly services: HarborServices,
  ) {
    this.task = (t.spec as HarborSpec).task.task;
    // Without a container sandbox the trial fails in provision, before any session.
    this.sandbox = t.env.sandbox!;
    this.sessions = services.withSession;
    this.audit = services.auditTrial;
    this.verifyHome = join(t.scratch, 'verify-home');
    this.verifierDir = `${t.scratch}-verifier`;
  }

  async provision() {
    const { env, rec, ws, spec } = this.t;
    const { task, sandbox, services } = this;
    if (!sandbox?.container)
      throw new InfraError(
        'provision',
        `Harbor task ${task.task_id} runs in its environment image: use --sandbox podman (or docker)`,
        'needs_container',
      );
    const cache = env.paths.cacheDir;
    const image = (await services.prepareEnvironment(sandbox, spec.task, cache))!;
    const engine = sandbox.container.engine;
    this.snapshot = await services.workdirSnapshot(cache, engine, image, task.task_id);
    copyTree(this.snapshot, ws);
    if (task.judgeDir) this.judge = await services.startJudge(task, sandbox, image.id);
    rec.details.env_reused = !image.built;
    rec.details.environment = environmentDetails(image);
    this.base = {
      workspace: ws,
      workdir: image.workdir,
      runId: env.runId,
      image: image.id,
      writableRoot: true,
      resources: resourcesOf(task),
    };
  }

  agentInput() {
    const { env, scratch } = this.t;
    const { task, judge } = this;
    const logsAgent = join(scratch, 'logs-agent');
    mkdirSync(logsAgent, { recursive: true });
    const mounts: Mount[] = [{ source: logsAgent, target: '/logs/agent' }];
    // The reference solution is the oracle's alone.
    if (env.agent.name === 'oracle' && task.solutionDir)
      mounts.push({ source: task.solutionDir, target: SOLUTION_MOUNT, readOnly: true });
    const judgeEnv = judge ? { JUDGE_URL: judge.agentUrl } : undefined;
    return {
      session: {
        ...this.base,
        home: join(scratch, 'home'),
        writable: [scratch],
        ...(judge && { extraEndpoints: [{ baseUrl: judge.agentUrl }] }),
        mounts,
        ...(judgeEnv && { env: judgeEnv }),
      },
      task,
      prompt: task.instruction,
      scratch,
      timeoutSec: task.timeouts.agent_sec,
      ...(judgeEnv && { env: judgeEnv }),
      since: ctimeMark(scratch),
    };
  }

  guard() {
    this.guardReport = sanitizeWorkspace(this.t.ws, this.snapshot);
  }

  diff() {
    this.change = treeDiff(this.snapshot, this.t.ws);
    return this.change;
  }

  harden() {
    this.removed = hardenHarbor(this.t.ws, this.snapshot, this.verifyHome);
  }

  async verify() {
    const { task, judge } = this;
    const tests = await verifyPhase(
      task,
      this.services,
      this.sandbox,
      this.base,
      this.verifierDir,
      this.verifyHome,
      judge,
    );
    this.tests = tests;
    this.t.rec.details.verifier = {
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
    this.reward = readReward(join(this.verifierDir, 'logs'));
  }

  grade(exit: ExitKind, agent: AgentOutcome) {
    const { reward, judge } = this;
    const outcome = harborOutcome(reward, exit, this.change?.files.length ?? 0);
    return {
      score: outcome.score,
      label: outcome.label,
      confidenceLevel: outcome.confidenceLevel,
      flags: agent.result.timedOut ? ['timed_out'] : [],
      details: {
        task_kind: 'harbor' as const,
        reward: { value: reward.value, metrics: reward.metrics, file: reward.file },
        explanation: outcome.explanation,
        ...(judge && { judge: judge.state() }),
      },
    };
  }

  auditFacts() {
    return {
      guard: { ...this.guardReport, git: [], nestedGit: [] },
      infra: { touchedTests: [], touchedInfra: this.removed, resultFiles: [] },
    };
  }

  artifacts(agent: AgentOutcome | undefined) {
    const { tests } = this;
    return {
      prompt: this.task.instruction,
      agent: agent?.result,
      patch: this.change?.patch,
      suites: tests && [{ name: 'harbor', stdout: tests.stdout, stderr: tests.stderr }],
      judge: this.judge?.state(),
    };
  }

  release() {
    const { env, rec, ws, scratch } = this.t;
    const judge = this.judge;
    const rm = (dir: string) => () => rmSync(dir, { recursive: true, force: true });
    return [
      {
        name: 'judge',
        run: async () => {
          if (judge && rec.details.judge === undefined) rec.details.judge = judge.state();
          await judge?.close();
        },
      },
      { name: 'workspace', run: () => env.keepWorkspaces || rm(ws)() },
      { name: 'scratch', run: rm(scratch) },
      { name: 'verifier', run: rm(this.verifierDir) },
    ];
  }
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
  services: HarborServices,
  sandbox: SandboxDriver,
  base: BaseSession,
  dir: string,
  verifyHome: string,
  judge: Judge | undefined,
): Promise<RunResult> {
  // Outside the scratch directory the agent could write to: made only now, empty.
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
  const r = await services.withSession(
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
      return services.run(w.command, w.args, {
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
