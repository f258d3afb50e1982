// A kind of task plugs into the trial template (src/trial/template.ts) by implementing one
// interface, each method one stage. The template calls them in order, times them, and turns a
// failure into an infra error of that stage; the kind keeps what one stage hands the next.
import type { ExitKind } from '../agent/types.js';
import type { Audit, AuditInput } from '../integrity/audit.js';
import type { withSession } from '../workspace/sandbox/session.js';
import type { SandboxDriver } from '../workspace/sandbox/types.js';
import type { AgentInput, AgentOutcome } from './agent.js';
import type { TrialArtifacts } from './artifacts.js';
import type { TrialEnv } from './env.js';
import type { AuditFacts, Grade, TrialDraft } from './record.js';
import type { TrialSpec } from './spec.js';

/** One trial's coordinates and places, as the template hands them to the kind. */
export interface TrialContext {
  spec: TrialSpec;
  env: TrialEnv;
  /** The record the stages write their details into. */
  rec: TrialDraft;
  ws: string;
  scratch: string;
  artifactsDir: string;
}

/** One step of the teardown: it runs whatever failed before, and its error is recorded, never thrown. */
export interface TeardownStep {
  name: string;
  run: () => unknown;
}

/** One trial of a kind of task: the stages, over the state the kind keeps between them. */
export interface KindTrial {
  /** Where the agent and the suites run. */
  readonly sandbox: SandboxDriver;
  /** How a sandboxed session is opened (replaced in unit tests). */
  readonly sessions: typeof withSession;
  /** How the audit reads the evidence (replaced in unit tests). */
  readonly audit: (a: AuditInput) => Audit;
  /** The workspace, the environment image, a judge: ready for the agent. */
  provision(): Promise<void>;
  /** What the agent is asked and where it runs. */
  agentInput(): AgentInput;
  /** Nothing of the agent runs any more: the workspace made safe to read. */
  guard(agent: AgentOutcome): Promise<void> | void;
  /** The agent's change: the files and the patch. */
  diff(
    agent: AgentOutcome,
  ): Promise<{ files: string[]; patch: string }> | { files: string[]; patch: string };
  /** What the agent may have done to the grading restored. */
  harden(agent: AgentOutcome): Promise<void> | void;
  /** The task's tests run on the change. */
  verify(): Promise<void>;
  /** The outcome, read from what verify found; writes nothing. */
  grade(exit: ExitKind, agent: AgentOutcome): Grade;
  /** What the audit reads besides the agent's output. */
  auditFacts(): AuditFacts;
  /** What the artifacts directory keeps (whatever stage the trial reached). */
  artifacts(agent: AgentOutcome | undefined): TrialArtifacts;
  /** The kind's own teardown steps (its workspace, its scratch, a judge), in order. */
  release(): TeardownStep[];
}

export interface TrialKind {
  readonly name: string;
  open(t: TrialContext): KindTrial;
}
