// A PR task as a kind of trial (src/trial/kind.ts):
//   provision  an overlay on (or a copy of) the cached env snapshot at base_commit; the task's
//              environment image under a container sandbox
//   agent      the task's prompt (hinted or navigation), the workspace, a scratch HOME
//   guard/diff kill leftovers, audit + restore .git, drop escaping links; the tree vs baseline
//   harden     test infrastructure back to the snapshot
//   verify     tests restored, test_patch applied, every suite run in the sandbox; a test that
//              never reported is checked against the task's golden control
//   grade      the ordered rules over the target tests (src/trial/pr/grade.ts)
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { buildPrompt } from '../../agent/prompt.js';
import type { ExitKind } from '../../agent/types.js';
import type { GuardReport } from '../../integrity/audit.js';
import type { LoadedTask } from '../../task/load.js';
import type { ResolvedTask } from '../../task/patches.js';
import { InfraError } from '../../util/errors.js';
import { ctimeMark } from '../../util/fs-tree.js';
import type { InfraReport } from '../../verify/harden.js';
import { deadSuiteError, type Verification } from '../../verify/verifier.js';
import type { ChangedPaths } from '../../workspace/changes.js';
import type { WorkspaceDiff } from '../../workspace/diff.js';
import type { PreparedEnvironment } from '../../workspace/environment.js';
import { releaseWorkspace } from '../../workspace/layers.js';
import type { ProvisionResult } from '../../workspace/provision.js';
import { noneDriver } from '../../workspace/sandbox/none.js';
import type { SandboxDriver } from '../../workspace/sandbox/types.js';
import { resolveSource } from '../../workspace/source.js';
import type { AgentOutcome } from '../agent.js';
import { containerInstaller, prepareEnvironment, resourcesOf } from '../environment.js';
import type { KindTrial, TrialContext, TrialKind } from '../kind.js';
import { environmentDetails } from '../record.js';
import { DEFAULT_SERVICES, type TrialServices } from '../services.js';
import type { TrialSpec } from '../spec.js';
import { runTemplate } from '../template.js';
import { gradePr } from './grade.js';
import { taskFault } from './task-control.js';

type PrSpec = TrialSpec & { task: LoadedTask<ResolvedTask> };

export const prKind: TrialKind = { name: 'pr', open: (t) => new PrTrial(t) };

/** A golden control of the task: the same trial, another agent (src/trial/pr/task-control.ts). */
const runControl = (spec: TrialSpec, env: TrialContext['env']) => runTemplate(prKind, spec, env);

class PrTrial implements KindTrial {
  readonly sandbox: SandboxDriver;
  readonly sessions: KindTrial['sessions'];
  readonly audit: KindTrial['audit'];
  private readonly spec: PrSpec;
  private readonly task: ResolvedTask;
  private readonly services: TrialServices;
  private readonly verifyHome: string;
  private environment?: PreparedEnvironment;
  private prov!: ProvisionResult;
  private changed?: ChangedPaths;
  private guardReport!: GuardReport;
  private change?: WorkspaceDiff;
  private infra!: InfraReport;
  private verification?: Verification;

  constructor(private readonly t: TrialContext) {
    this.spec = t.spec as PrSpec;
    this.task = this.spec.task.task;
    this.services = { ...DEFAULT_SERVICES, ...t.env.services };
    this.sandbox = t.env.sandbox ?? noneDriver();
    this.sessions = this.services.withSession;
    this.audit = this.services.auditTrial;
    this.verifyHome = join(t.scratch, 'verify-home');
  }

  /** What every session of the trial adds under a container sandbox: its image and limits. */
  private container() {
    const e = this.environment;
    return e ? { image: e.id, resources: resourcesOf(this.task) } : {};
  }

  async provision() {
    const { env, rec, ws } = this.t;
    const { sandbox, task } = this;
    const environment = await prepareEnvironment(sandbox, this.spec.task, env.paths.cacheDir);
    this.environment = environment;
    const resources = resourcesOf(task);
    const prov = await this.services.provision(
      env.paths.cacheDir,
      task,
      resolveSource(this.spec.task, env.mirrorDir),
      ws,
      {
        mode: env.provision,
        owner: sandbox.user,
        signal: env.signal,
        runId: env.runId,
        environment:
          environment && containerInstaller(sandbox, environment, { runId: env.runId, resources }),
      },
    );
    this.prov = prov;
    rec.details.env_reused = prov.envReused;
    if (prov.layers)
      rec.details.provision = {
        mode: prov.layers.kind,
        ms: prov.provisionMs,
        ...(prov.layers.fallback && { fallback: prov.layers.fallback }),
      };
    if (environment) rec.details.environment = environmentDetails(environment);
  }

  agentInput() {
    const { ws, scratch } = this.t;
    return {
      session: {
        workspace: ws,
        workspaceUpper: this.prov.layers?.upper,
        home: join(scratch, 'home'),
        writable: [scratch],
        ...this.container(),
      },
      task: this.task,
      prompt: buildPrompt(this.task, this.spec.mode),
      scratch,
      timeoutSec: this.task.timeouts.agent_sec,
      since: ctimeMark(scratch),
    };
  }

  guard() {
    // On an overlay, only what its upper layer holds can differ from the snapshot: look there.
    this.changed = this.prov.changes?.();
    const { snapshotWs, sourceClone } = this.prov;
    this.guardReport = this.services.guardWorkspace(
      this.t.ws,
      snapshotWs,
      sourceClone,
      this.changed,
    );
  }

  async diff(agent: AgentOutcome) {
    const { rec, ws } = this.t;
    const d = await this.services.workspaceDiff(ws, this.prov.baselineTree, this.changed);
    this.change = d;
    const reported = agent.result.reportedFilesChanged;
    if (reported) {
      const sorted = [...new Set(reported)].sort();
      rec.details.reported_files_changed = sorted;
      if (sorted.join('\n') !== d.files.join('\n')) rec.flags.push('files_changed_disagree');
    }
    return d;
  }

  harden(agent: AgentOutcome) {
    const { ws } = this.t;
    const { snapshotWs } = this.prov;
    this.infra = this.services.restoreInfrastructure(
      ws,
      snapshotWs,
      this.task,
      agent.since,
      this.verifyHome,
      this.changed,
    );
  }

  async verify() {
    const { env, rec, ws, scratch } = this.t;
    const { task, prov } = this;
    if (task.fail_to_pass.length === 0)
      throw new InfraError(
        'verify',
        `task ${task.task_id} has no fail_to_pass tests recorded; run "nanobench validate" on it`,
        'no_fail_to_pass',
      );
    // The suites run the agent's code: in the same sandbox, without the endpoint.
    const session = { workspace: ws, workspaceUpper: prov.layers?.upper, home: this.verifyHome };
    const run = await this.services.withSession(
      this.sandbox,
      { ...session, tag: randomUUID(), runId: env.runId, ...this.container() },
      (s) => this.services.verify(ws, prov.baselineTree, task, scratch, s.wrap.bind(s)),
    );
    const v = run.value;
    this.verification = v;
    const dead = deadSuiteError(v);
    if (dead) throw dead;
    // A suite without a report or a target never named: the task's fault, or the agent's?
    const fault = await taskFault(rec, this.spec, env, v, runControl);
    if (fault) throw fault;
  }

  grade(exit: ExitKind, agent: AgentOutcome) {
    return gradePr({
      task: this.task,
      mode: this.spec.mode,
      diff: this.change!,
      verification: this.verification!,
      exit,
      timedOut: agent.result.timedOut,
      filesRead: agent.result.toolUse?.files_read,
      score: this.services.score,
      existsAtBase: this.services.symbolAtBase(this.t.ws, this.task.base_commit),
    });
  }

  auditFacts() {
    return { guard: this.guardReport, infra: this.infra };
  }

  artifacts(agent: AgentOutcome | undefined) {
    return {
      prompt: buildPrompt(this.task, this.spec.mode),
      agent: agent?.result,
      patch: this.change?.patch,
      suites: this.verification?.suites,
    };
  }

  release() {
    const { env, ws, scratch } = this.t;
    return [
      // Unmounts an overlay too, whatever failed before: no trial leaves a mount behind. One
      // left behind all the same is ended by the next resume (src/run/leftovers.ts).
      { name: 'workspace', run: () => releaseWorkspace(ws, { keep: env.keepWorkspaces }) },
      { name: 'scratch', run: () => rm(scratch, { recursive: true, force: true }) },
    ];
  }
}
