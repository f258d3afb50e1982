// The Agent interface. Every agent (nanocoder, bare, oracle, nop, command) returns the same record,
// so the verifier and scorer never need to know which one ran.

import type { ProviderKind } from '../provider/kinds.js';
import type { HarborTask } from '../task/harbor.js';
import type { ResolvedTask } from '../task/patches.js';
import type { AgentSandbox } from '../workspace/sandbox/types.js';
import type { ToolUse } from './tool-use.js';

export type Mode = 'hinted' | 'navigation';

/**
 * What building an agent reads of a run's configuration: the run's `RunConfig`
 * (src/run/config.ts) satisfies it. Declared here, so the agents do not import the run.
 */
export interface AgentConfig {
  /** What --agent names (src/agent/agents.ts), e.g. "nanocoder" or "command:./fix.sh". */
  agent: string;
  /** Directory relative command agents are resolved against. */
  cwd: string;
  /** Nanocoder build (checkout dir or cli.js) when not the pinned dependency. */
  nanocoder?: string;
  /** Node binary for Nanocoder. */
  node?: string;
}

/** Why the agent process ended, from its exit code and output. */
export type ExitKind =
  | 'success'
  | 'error'
  | 'context_exceeded'
  | 'rate_limited'
  /** A quota or the account's credit is exhausted (HTTP 402, a quota 429, Anthropic's balance). */
  | 'quota_exceeded'
  /** The provider refused the key (HTTP 401 or 403). */
  | 'auth_failed'
  /** The provider has no such model (HTTP 404). */
  | 'model_not_found'
  | 'server_error'
  | 'unreachable'
  | 'request_timeout'
  | 'timeout' // NanoBench's wall-clock limit killed it
  | 'signal'
  | 'tool_approval_required'
  | 'invalid_report'
  /** The bare agent: the model's answer could not be parsed or applied (its reason in details). */
  | 'unusable_edit';

/**
 * The exits that stop the agent for want of room (its context filled up): the model's doing,
 * scored by rule 1 (context_window_exceeded) when nothing was changed, never a provider refusal.
 * The one list the scorer, the Harbor grade and the agent stage read.
 */
export const STOP_KINDS: readonly ExitKind[] = ['context_exceeded'];

export interface AgentContext {
  /** A PR task with its patches, or a Harbor task (its instruction is the prompt). */
  task: ResolvedTask | HarborTask;
  mode: Mode;
  /** Prompt built from the task for this mode. */
  prompt: string;
  workspace: string;
  /** Per-trial scratch directory outside the workspace (home, config, logs). */
  scratchDir: string;
  timeoutSec: number;
  provider: string;
  model: string;
  /** The agent the trial plans (its TrialSpec's): which one runs when a run has several. */
  agent?: string;
  /** 1-based attempt number of this (task, model, mode) cell. */
  attempt: number;
  /**
   * The model endpoint the agent must talk to (the NanoBench proxy) and the wire format it
   * speaks there (src/provider/kinds.ts; default openai-compatible).
   */
  endpoint?: { baseUrl: string; apiKey: string; kind?: ProviderKind };
  /** Extra environment for the agent process (already isolated; never the user's secrets). */
  env?: Record<string, string>;
  signal?: AbortSignal;
  /** Where the agent's processes run (src/workspace/sandbox/); absent means no isolation. */
  sandbox?: AgentSandbox;
}

export interface AgentResult {
  exitCode: number | null;
  exitKind: ExitKind;
  stdout: string;
  stderr: string;
  durationMs: number;
  timedOut: boolean;
  /** Files the agent says it changed (Nanocoder's filesChanged); ground truth is the git diff. */
  reportedFilesChanged?: string[];
  /** Parsed structured report, when the agent produces one. */
  report?: unknown;
  /** Token usage when known. */
  usage?: { inputTokens: number; outputTokens: number; totalTokens: number };
  /** Tool calls and files read, when the agent reports its tool calls (src/agent/tool-use.ts). */
  toolUse?: ToolUse;
  /** Set when the agent itself could not run properly (infra error, not a score). */
  infraError?: string;
  /** Free-form facts to keep with the trial (versions, tool profile...). */
  meta?: Record<string, unknown>;
}

export interface Agent {
  /** Name as stored in results, e.g. "oracle", "nop", "command:./fix.sh", "nanocoder". */
  readonly name: string;
  run(ctx: AgentContext): Promise<AgentResult>;
  /** Facts recorded with the run (e.g. the exact Nanocoder version and build path). */
  describe?(): Promise<Record<string, unknown>>;
}
