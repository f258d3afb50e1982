// The sandbox contract. A driver prepares sessions; a session is one sandboxed phase of a trial
// (the agent, or the verifier's test runs) and turns argv into the argv that runs it isolated.
import type { Engine } from './engine.js';

export const SANDBOX_MODES = ['auto', 'bwrap', 'none', 'podman', 'docker'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/**
 * What each --sandbox mode gives and needs, in one table: every command's --sandbox help is
 * written from it (sandboxHelp) and selectSandbox's refusals name its `needs`. A mode missing
 * here fails the type check.
 */
export const SANDBOXES: Readonly<Record<SandboxMode, { help: string; needs?: string }>> = {
  auto: { help: 'bwrap when it works here, else what none gives' },
  bwrap: {
    help: 'the agent and the test runs in their own namespaces, no network but the model endpoint, nothing of this machine but the toolchain and their directories',
    needs: 'install bubblewrap (apt-get install bubblewrap) and allow unprivileged user namespaces',
  },
  none: {
    help: 'no isolation; as root the agent runs as nobody (none-as-nobody), with the network',
  },
  podman: {
    help: "in containers of each task's environment image",
    needs: 'apt-get install podman runc',
  },
  docker: { help: 'as podman, through Docker', needs: 'install Docker and start its daemon' },
};

/** The --sandbox help of a command: the modes, what each gives, and what auto means there. */
export function sandboxHelp(autoHere?: string): string {
  const modes = SANDBOX_MODES.map((m) =>
    m === 'auto' && autoHere ? `auto: ${autoHere}` : `${m}: ${SANDBOXES[m].help}`,
  );
  return `${SANDBOX_MODES.join(' | ')}. ${modes.join('; ')}`;
}
/**
 * The isolation a session really had. `none-as-nobody` is what `none` becomes when NanoBench runs
 * as root: no network isolation, but the agent runs as `nobody` and sees only the toolchain and
 * its own directories (src/workspace/sandbox/nobody.ts).
 */
export const SANDBOX_KINDS = ['bwrap', 'podman', 'docker', 'none-as-nobody', 'none'] as const;
export type SandboxKind = (typeof SANDBOX_KINDS)[number];

/** An agent launches every process through wrap(), so it runs isolated and can be found again. */
export interface AgentSandbox {
  readonly kind: SandboxKind;
  /** Value of NANOBENCH_PROCESS_TAG for every process of the session (stragglers are found by it). */
  readonly tag: string;
  /** argv -> the argv that runs it in the sandbox; `readOnly` paths are made visible read-only. */
  wrap(command: string, args: string[], readOnly?: string[]): { command: string; args: string[] };
}

/**
 * What makes a session's processes die with NanoBench, even when it is killed with SIGKILL:
 * `pid-namespace` (they all die with the namespace's init), `pdeathsig` (only the launched
 * command dies with us; its descendants wait for killRunLeftovers), `tag-sweep` (nothing
 * automatic: only the environment tags let killRunLeftovers find them), `container` (each command
 * is a container whose init kills everything in it when NanoBench's liveness pipe closes; the
 * session removes its containers by label).
 */
export type Containment = 'pid-namespace' | 'pdeathsig' | 'tag-sweep' | 'container';

/** A host path seen at another path inside a container session. */
export interface Mount {
  source: string;
  target: string;
  readOnly?: boolean;
}

export interface SessionOptions {
  /** Seen read-write at its real path; the working directory of everything wrapped. */
  workspace: string;
  /**
   * When the workspace is an overlay: its upper layer, i.e. every entry not as the snapshot has
   * it (none-as-nobody hands only those to its user; the lower layer is already that user's).
   */
  workspaceUpper?: string;
  /** HOME inside the session (read-write). */
  home: string;
  /** Other directories seen read-write at their real paths (the trial's scratch directory). */
  writable?: string[];
  /** The one network destination allowed: an http(s) URL on the loopback interface. */
  endpoint?: { baseUrl: string };
  /** Environment tag every process of the session inherits (see util/process-group.ts). */
  tag: string;
  /** The run's id, set in every process's environment too (killRunLeftovers finds them by it). */
  runId?: string;
  // Container drivers only (the others ignore them):
  /** The environment image the session's commands run in (required by podman/docker). */
  image?: string;
  /** Where the workspace appears inside (default: its real path). A Harbor task's WORKDIR. */
  workdir?: string;
  /** More bind mounts at other paths (a Harbor task's /tests, /logs/verifier, /solution). */
  mounts?: Mount[];
  /** More loopback endpoints bridged in besides `endpoint` (a judge's port). */
  extraEndpoints?: { baseUrl: string }[];
  /** `host`: the machine's network, for install steps only; default none (but the endpoints). */
  network?: 'none' | 'host';
  /** The image's own filesystem writable (discarded with the container); default read-only. */
  writableRoot?: boolean;
  /** Resource limits of the task (container cgroups). */
  resources?: { cpus?: number; memoryMb?: number };
  /** Extra environment set inside (values travel as -e NAME=VALUE). */
  env?: Record<string, string>;
}

/** What a session saw, for the integrity audit. */
export interface SessionReport {
  kind: SandboxKind;
  /** Paths the sandboxed processes created outside everything they may write (best effort). */
  writesOutside: string[];
  /** Connections the bridge carried to the endpoint. */
  endpointConnections: number;
  /** Resource limits applied to every process, as passed to prlimit. */
  limits: string[];
  /** The extra read-only paths wrap() was given (the agent's own runtime, package or script). */
  readOnly: string[];
  /** How the session's processes were kept from outliving NanoBench. */
  containment: Containment;
}

export interface SandboxSession extends AgentSandbox {
  /** Stop the endpoint bridge and look at what was left behind. Idempotent. */
  close(): Promise<SessionReport>;
}

/** How a container driver finds a task's environment image (src/workspace/environment.ts). */
export interface ContainerSetup {
  engine: Engine;
  /** The image of tasks that declare no environment (--image). */
  defaultImage?: string;
  /** Passed to every environment build (--build-arg NAME=VALUE). */
  buildArgs: string[];
}

export interface SandboxDriver {
  readonly kind: SandboxKind;
  /** Why this driver was chosen (e.g. why auto fell back to none). */
  readonly note?: string;
  /** The user commands run as, when it is not NanoBench's (the workspace must be theirs). */
  readonly user?: { uid: number; gid: number };
  /** Container drivers only: sessions need an image (SessionOptions.image). */
  readonly container?: ContainerSetup;
  open(o: SessionOptions): Promise<SandboxSession>;
}
