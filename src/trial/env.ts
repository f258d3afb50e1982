// What every trial of a run shares: the run, its paths, the agent, the sandbox and the policies.
// The run builds it (src/run/runner.ts); validate and the gates build their own.
import type { Agent } from '../agent/types.js';
import type { IntegrityMode } from '../integrity/flags.js';
import type { EndpointFor, TrialEndpoint } from '../provider/endpoints.js';
import type { ProvisionMode } from '../workspace/layers.js';
import type { SandboxDriver } from '../workspace/sandbox/types.js';
import type { RunPaths } from './paths.js';
import type { TrialServices } from './services.js';
import type { TrialSlots } from './slots.js';
import type { TrialSpec } from './spec.js';

export interface TrialEnv {
  runId: string;
  paths: RunPaths;
  agent: Agent;
  mirrorDir?: string;
  keepWorkspaces: boolean;
  /** OpenAI-compatible endpoint for LLM agents, per trial (the NanoBench provider proxy). */
  endpointFor?: (spec: TrialSpec, trial: EndpointFor) => TrialEndpoint | undefined;
  signal?: AbortSignal;
  /** Where the agent and the test suites run (src/workspace/sandbox/); default: no isolation. */
  sandbox?: SandboxDriver;
  /** What integrity flags do (src/integrity/flags.ts); default "flag". */
  integrity?: IntegrityMode;
  /** How trial workspaces are made (src/workspace/layers.ts); default auto. */
  provision?: ProvisionMode;
  /** The run's agent and verify slots (src/run/slots.ts); none: every stage runs at once. */
  slots?: TrialSlots;
  /** Replacements for the stages' services (unit tests of the lifecycle). */
  services?: Partial<TrialServices>;
  /**
   * This trial is a task's golden control (src/trial/pr/task-control.ts): what it leaves
   * unreported is the task's fault at once, never checked against another control.
   */
  control?: boolean;
}
