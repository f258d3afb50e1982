// What a trial records beside its outcome (TrialRecord.details), key by key: what each stage
// writes and the reports, the viewer and the audit read. Times are in milliseconds (`_ms`).
// Records stored by another version of NanoBench may lack a key or hold one not listed here,
// so every key is optional and the rest is kept (the index signature), never assumed.
import type { FilesRead, ToolUse } from '../agent/tool-use.js';
import type { AgentResult } from '../agent/types.js';
import type { ProxyAccount } from '../provider/proxy.js';
import type { ProvisionKind } from '../workspace/layers.js';
import type { SessionReport } from '../workspace/sandbox/types.js';
import type { TimedPhase } from './stages.js';

/** What a verification left unreported: suites without a report, targets never named. */
export interface Unreported {
  /** Suites whose status is no_report. */
  noReport: string[];
  /** Target ids no suite reported although their suite ran, reported and had no load error. */
  missing: string[];
}

export interface TargetDetail {
  id: string;
  passed: boolean;
  /** Why a failed target failed (its first 2000 characters). */
  message?: string;
}

export interface SuiteDetail {
  name: string;
  status: string;
  exit_code: number | null;
  timed_out: boolean;
  ms: number;
  tests: number;
  fallback?: string;
}

/** Every key a trial writes, with its type. */
export interface KnownDetails {
  // the template
  phase_ms: Partial<Record<TimedPhase, number>>;
  /** Teardown steps that failed, by step name: the outcome stands. */
  teardown_errors: Record<string, string>;
  /** Time spent waiting for an agent, a start and a verify slot (src/run/slots.ts): the pools were full. */
  slot_wait_ms: { agent?: number; start?: number; verify?: number };
  /** When the agent started, after its slot: agent runs of trials overlap from this. */
  agent_started_at: string;
  // provision
  env_reused: boolean;
  provision: { mode: ProvisionKind; ms?: number; fallback?: string[] };
  environment: { image: string; ref?: string; built: boolean; build_ms: number; workdir?: string };
  // agent
  sandbox: Pick<SessionReport, 'kind' | 'containment' | 'limits'> & {
    endpoint_connections?: number;
  };
  agent_exit_code: number | null;
  agent_ms: number;
  agent_meta: NonNullable<AgentResult['meta']>;
  usage: NonNullable<AgentResult['usage']>;
  tool_calls: Omit<ToolUse, 'files_read'>;
  files_read: FilesRead;
  /** The provider proxy's account (src/provider/proxy.ts). */
  proxy: ProxyAccount;
  // diff
  reported_files_changed: string[];
  // verify (PR tasks)
  unreported: Unreported;
  golden_control: { error: string } | { unreported: Unreported; artifacts_dir: string | null };
  // verify (Harbor tasks)
  verifier: { exit_code: number | null; timed_out: boolean; ms: number };
  // grade (PR tasks)
  missing_targets: { count: number; ids: string[] };
  scoring_rules_version: number;
  explanation: string;
  symbol: string;
  fail_to_pass: TargetDetail[];
  pass_to_pass: TargetDetail[];
  suites: SuiteDetail[];
  verifier_ms: number;
  /** The evaluator's criteria vector (src/score/criteria.ts). */
  criteria: Record<string, boolean>;
  // grade (Harbor tasks)
  task_kind: 'harbor';
  reward: { value: number; metrics: Record<string, number>; file: string };
  /** A Harbor judge's log: submissions, lock, final grade. */
  judge: { submissions: unknown[]; locked: boolean; final: unknown };
  // audit
  integrity: Record<string, unknown> & {
    strict?: { original_label: string | null; original_score: number | null; reason: string };
  };
}

export type DetailKey = keyof KnownDetails;

export type TrialDetails = Partial<KnownDetails> & Record<string, unknown>;
