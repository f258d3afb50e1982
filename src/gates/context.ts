// What the gates of one task share: the loaded task, its dataset's manifest, and the expensive
// facts (source clone, environment snapshot, test runs), each computed once on first use. The
// trial pipeline's own pieces do the work: provision, verify, restore.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Agent, Mode } from '../agent/types.js';
import { trialKey } from '../run/plan.js';
import { taskDigest } from '../task/digest.js';
import { recordTestLists } from '../task/governance.js';
import type { LoadedTask } from '../task/load.js';
import type { Manifest } from '../task/manifest.js';
import type { ResolvedTask } from '../task/patches.js';
import type { Task } from '../task/schema.js';
import type { TrialEnv } from '../trial/env.js';
import { containerInstaller, prepareEnvironment, resourcesOf } from '../trial/environment.js';
import { RunPaths } from '../trial/paths.js';
import type { RunnableTask, TrialSpec } from '../trial/spec.js';
import { applyPatch } from '../util/git.js';
import { type Verification, verify } from '../verify/verifier.js';
import type { PreparedEnvironment } from '../workspace/environment.js';
import { ensureSnapshot, materialize, type Snapshot } from '../workspace/provision.js';
import { resolveTask, sourceCloneFor } from '../workspace/resolve-tasks.js';
import { withSession } from '../workspace/sandbox/session.js';
import type { SandboxDriver } from '../workspace/sandbox/types.js';
import { type RepoSource, resolveSource } from '../workspace/source.js';

/**
 * The trial environment of a gate's trials (a PR task's controls and contract cases through
 * GateContext.trialEnv, a Harbor task's controls): the one place that builds it.
 */
export function gateTrialEnv(
  o: {
    runId: 'validate' | 'contracts';
    /** Where the trials' workspaces live (the caller removes it). */
    dir: string;
    cacheDir: string;
    mirrorDir?: string;
    /** In the task's environment image when the gates run under a container sandbox. */
    sandbox?: SandboxDriver;
  },
  agent: Agent,
  extra: Pick<TrialEnv, 'services'> = {},
): TrialEnv {
  return {
    runId: o.runId,
    paths: new RunPaths(join(o.dir, 'trials.sqlite'), o.cacheDir),
    agent,
    mirrorDir: o.mirrorDir,
    keepWorkspaces: false,
    ...extra,
    ...(o.sandbox && { sandbox: o.sandbox }),
  };
}

/** A gate's trial of a task: no provider, no model; the agent is a control or a candidate. */
export function gateTrialSpec(
  task: RunnableTask,
  agent: string,
  mode: Mode = 'hinted',
  attempt = 1,
): TrialSpec {
  const cell = { agent, provider: 'none', model: 'none', mode, attempt };
  return { ...cell, key: trialKey({ ...cell, taskId: task.task.task_id }), task };
}

export interface ValidateOptions {
  /** Where source clones and environment snapshots are cached (shared with `run`). */
  cacheDir: string;
  /** Scratch directory for this validation's workspaces; the caller removes it. */
  workDir: string;
  mirrorDir?: string;
  /** Contamination cutoff overriding the manifest's. */
  cutoff?: string;
  /** Write the computed fail_to_pass / pass_to_pass into the task file. */
  write: boolean;
  /**
   * Where the gates' trials (controls, contract cases) run, as a run's would: bwrap or
   * none-as-nobody on this machine; or a container sandbox (--sandbox podman|docker), where a task
   * that declares an environment (or every task, with --image) has its install, suites and
   * controls run in that image, as its trials do. Absent: on this machine, unsandboxed.
   */
  sandbox?: SandboxDriver;
  log?: (line: string) => void;
}

export type GoldenRun =
  | { applied: true; verification: Verification }
  | { applied: false; error: string };

export class GateContext {
  loaded?: LoadedTask;
  /** Milliseconds of every verifier run made while validating this task (the runtime gate). */
  readonly verifierMs: number[] = [];
  private readonly memo = new Map<string, Promise<unknown>>();
  private readonly baseResults: Verification[] = [];

  constructor(
    readonly file: string,
    readonly datasetDir: string,
    readonly manifest: Manifest | undefined,
    readonly opts: ValidateOptions,
  ) {}

  get task(): Task {
    if (!this.loaded) throw new Error('the schema gate has not loaded the task');
    return this.loaded.task;
  }

  log(line: string): void {
    this.opts.log?.(`${this.loaded?.task.task_id ?? this.file}: ${line}`);
  }

  dir(name: string): string {
    const d = join(this.opts.workDir, this.task.task_id.replace(/[^A-Za-z0-9._-]/g, '_'), name);
    mkdirSync(d, { recursive: true });
    return d;
  }

  /**
   * What a gate's trials share (validate's controls, the contract cases): the trial core's
   * environment with this task's cache, mirror and container sandbox; `name` is their run id and
   * the directory of their workspaces.
   */
  trialEnv(
    name: 'validate' | 'contracts',
    agent: Agent,
    extra: Pick<TrialEnv, 'services'> = {},
  ): TrialEnv {
    return gateTrialEnv(
      {
        runId: name,
        dir: this.dir(name),
        cacheDir: this.opts.cacheDir,
        mirrorDir: this.opts.mirrorDir,
        sandbox: this.trialSandbox,
      },
      agent,
      extra,
    );
  }

  private once<T>(key: string, fn: () => Promise<T>): Promise<T> {
    if (!this.memo.has(key)) this.memo.set(key, fn());
    return this.memo.get(key) as Promise<T>;
  }

  source(): RepoSource {
    return resolveSource(this.loaded!, this.opts.mirrorDir);
  }

  /** Bare clone of the source holding base_commit and pr_commit (InfraError when it does not). */
  clone(): Promise<string> {
    return this.once('clone', () =>
      sourceCloneFor(this.loaded!, {
        cacheDir: this.opts.cacheDir,
        mirrorDir: this.opts.mirrorDir,
        log: (line) => this.log(line),
      }),
    );
  }

  /**
   * Record computed fail_to_pass / pass_to_pass in the task file and in every view of the task
   * this validation holds, so the gates after verification (controls) grade on them.
   */
  async recordLists(failToPass: string[], passToPass: string[]): Promise<void> {
    recordTestLists(this.file, failToPass, passToPass);
    const views = [this.task, ...(this.memo.has('resolved') ? [(await this.resolved()).task] : [])];
    for (const t of views) {
      t.fail_to_pass = failToPass;
      t.pass_to_pass = passToPass;
    }
    this.loaded!.digest = taskDigest(this.task);
  }

  /** The task with its patches (derived from the clone and digest-checked for reference tasks). */
  resolved(): Promise<LoadedTask<ResolvedTask>> {
    return this.once('resolved', () =>
      resolveTask(this.loaded!, {
        cacheDir: this.opts.cacheDir,
        mirrorDir: this.opts.mirrorDir,
        log: (line) => this.log(line),
      }),
    );
  }

  /**
   * The container sandbox this task's gates run in: the --sandbox one when the task declares an
   * environment or the run gave --image; otherwise none (the host's toolchain, as without it).
   */
  get sandbox(): SandboxDriver | undefined {
    const s = this.opts.sandbox;
    if (!s?.container) return undefined;
    return this.task.environment || s.container.defaultImage ? s : undefined;
  }

  /**
   * Where the gates' trials run: the container sandbox as above; else the sandbox a run would use
   * here (bwrap, none-as-nobody) when validate was given one; else this machine, unsandboxed.
   */
  get trialSandbox(): SandboxDriver | undefined {
    const s = this.opts.sandbox;
    return s?.container ? this.sandbox : s;
  }

  /** The task's environment image (built once, cached), under a container sandbox. */
  environment(): Promise<PreparedEnvironment | undefined> {
    return this.once('environment', async () => {
      const sandbox = this.sandbox;
      if (!sandbox) return undefined;
      this.log('preparing the environment image');
      return prepareEnvironment(sandbox, await this.resolved(), this.opts.cacheDir);
    });
  }

  /** The environment at base_commit with the install command run: what every trial starts from. */
  snapshot(): Promise<Snapshot & { reused: boolean }> {
    return this.once('snapshot', async () => {
      const clone = await this.clone();
      const image = await this.environment();
      this.log(
        `preparing the environment at base_commit${image ? ` (install in ${image.ref})` : ''}`,
      );
      const { task } = await this.resolved();
      const installer =
        image && containerInstaller(this.sandbox!, image, { resources: resourcesOf(task) });
      return ensureSnapshot(this.opts.cacheDir, task, clone, { environment: installer });
    });
  }

  private async timed(ws: string, scratch: string): Promise<Verification> {
    const { task } = await this.resolved();
    const tree = (await this.snapshot()).baselineTree;
    const image = await this.environment();
    let v: Verification;
    if (image)
      // The suites in a container of the task's image, as a trial's verify phase runs them.
      v = (
        await withSession(
          this.sandbox!,
          {
            workspace: ws,
            home: join(scratch, 'verify-home'),
            tag: randomUUID(),
            image: image.id,
            resources: resourcesOf(task),
          },
          (session) => verify(ws, tree, task, scratch, session.wrap.bind(session)),
        )
      ).value;
    else v = await verify(ws, tree, task, scratch);
    this.verifierMs.push(v.durationMs);
    return v;
  }

  /**
   * The first `n` runs of the suites at base (test_patch applied), one after another in the same
   * workspace, as a developer would run them.
   */
  async baseRuns(n: number): Promise<Verification[]> {
    // Gates run one at a time, so the runs never interleave in the shared workspace.
    const ws = join(this.dir('base'), 'ws');
    if (this.baseResults.length === 0) await materialize(await this.snapshot(), ws);
    while (this.baseResults.length < n) {
      this.log(`running the suites at base (run ${this.baseResults.length + 1})`);
      this.baseResults.push(await this.timed(ws, this.dir('base-scratch')));
    }
    return this.baseResults.slice(0, n);
  }

  /** The suites with the golden patch applied on a fresh copy of the environment. */
  goldenRun(): Promise<GoldenRun> {
    return this.once('golden', async () => {
      const ws = join(this.dir('golden'), 'ws');
      await materialize(await this.snapshot(), ws);
      const r = await applyPatch(ws, (await this.resolved()).task.ground_truth_patch);
      if (r.exitCode !== 0) return { applied: false, error: r.stderr.trim() };
      this.log('running the suites with the golden patch');
      return {
        applied: true,
        verification: await this.timed(ws, this.dir('golden-scratch')),
      };
    });
  }
}
