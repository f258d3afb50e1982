// The agent stage of any trial: the agent run in its sandbox session, and how its exit settles
// (the agent's own exit kind, unless the provider proxy saw the provider stop it; harness and
// provider failures become infra errors, never the model's score).
import { randomUUID } from 'node:crypto';
import { exitKindWithProxy, type LastError, refusalIn } from '../agent/nanocoder-exit.js';
import { type AgentContext, type AgentResult, type ExitKind, STOP_KINDS } from '../agent/types.js';
import type { TrialEndpoint } from '../provider/endpoints.js';
import { REFUSAL_TEXT } from '../provider/kinds.js';
import { InfraError } from '../util/errors.js';
import type { withSession } from '../workspace/sandbox/session.js';
import type { SandboxDriver, SessionOptions, SessionReport } from '../workspace/sandbox/types.js';
import type { TrialEnv } from './env.js';
import type { TrialSpec } from './spec.js';

export interface AgentOutcome {
  result: AgentResult;
  /** What the agent's sandbox session saw. */
  session: SessionReport;
  /** The provider proxy's account of the trial, when an LLM agent ran. */
  telemetry?: ReturnType<NonNullable<TrialEndpoint['finish']>>;
  /** ctime mark taken before the agent started (hardening finds what it touched after). */
  since: bigint;
}

/** What a task kind gives the agent: its session, its prompt and what it may see. */
export interface AgentInput {
  /** The agent's sandbox session, but for what every trial sets (tag, run id, endpoint). */
  session: Omit<SessionOptions, 'tag' | 'runId' | 'endpoint'>;
  task: AgentContext['task'];
  prompt: string;
  /** The agent's own scratch directory (its HOME is under it). */
  scratch: string;
  timeoutSec: number;
  /** Extra environment for the agent (a Harbor judge's URL). */
  env?: Record<string, string>;
  /** ctime mark taken before the agent starts. */
  since: bigint;
}

/** The agent run in its session, as both task kinds run it. */
export async function runAgent(
  input: AgentInput,
  t: {
    spec: TrialSpec;
    env: TrialEnv;
    sandbox: SandboxDriver;
    endpoint?: TrialEndpoint;
    sessions: typeof withSession;
  },
): Promise<AgentOutcome> {
  const { spec, env, endpoint } = t;
  const run = await t.sessions(
    t.sandbox,
    { ...input.session, endpoint, tag: randomUUID(), runId: env.runId },
    (session) =>
      env.agent.run({
        task: input.task,
        mode: spec.mode,
        prompt: input.prompt,
        workspace: input.session.workspace,
        scratchDir: input.scratch,
        timeoutSec: input.timeoutSec,
        provider: spec.provider,
        model: spec.model,
        attempt: spec.attempt,
        agent: spec.agent,
        endpoint: endpoint && {
          baseUrl: endpoint.baseUrl,
          apiKey: endpoint.apiKey,
          kind: endpoint.kind,
        },
        ...(input.env && { env: input.env }),
        signal: env.signal,
        sandbox: session,
      }),
  );
  return {
    result: run.value,
    session: run.report,
    telemetry: endpoint?.finish?.(),
    since: input.since,
  };
}

/** The proxy's record of the reply the trial ended on, when that reply failed. */
function lastErrorOf(a: AgentOutcome): LastError | undefined {
  return a.telemetry?.details.last_error;
}

/**
 * The exit kind the scorer sees: the agent's own, unless it only said "error" and the proxy saw
 * the provider stop it (context length, or a refusal of service). Returns whether the proxy decided.
 */
export function effectiveExit(a: AgentOutcome): { kind: ExitKind; fromProxy: boolean } {
  const kind = exitKindWithProxy(a.result.exitKind, lastErrorOf(a));
  return { kind, fromProxy: kind !== a.result.exitKind };
}

/** The provider failure behind each exit kind the agent names, as the infra error's code. */
const PROVIDER_FAILURES: Partial<Record<ExitKind, string>> = {
  unreachable: 'unreachable',
  request_timeout: 'timeout',
  server_error: 'server_error',
  rate_limited: 'rate_limited',
  quota_exceeded: 'billing',
  auth_failed: 'auth',
  model_not_found: 'model_not_found',
};

/**
 * Why the provider, not the model, ended the trial: a refusal of service in the last reply the
 * proxy saw (its status code, in every wire format), else the agent's own words for one. The
 * proxy is asked whatever the agent's exit, a timeout included: NanoBench's agent limit can end
 * Nanocoder while it waits to retry a 429 or a 500, and that run said nothing about the model.
 * A context-length error is the model's (scoring rule 1), never a refusal.
 */
export function providerFailure(a: AgentOutcome, kind: ExitKind): InfraError | undefined {
  if (kind === 'success' || STOP_KINDS.includes(kind)) return undefined;
  const last = lastErrorOf(a);
  const refusal = last && refusalIn(last);
  const stderr = a.result.stderr.trim().split('\n').pop() ?? '';
  if (last && refusal)
    return new InfraError(
      'provider',
      `${REFUSAL_TEXT[refusal]} (HTTP ${last.status}): ${last.message || stderr}`,
      refusal,
    );
  const code = PROVIDER_FAILURES[kind];
  if (code)
    return new InfraError(
      'provider',
      `the agent stopped on a provider failure (${kind}): ${stderr}`,
      code,
    );
  return undefined;
}

/**
 * Harness and provider failures seen by the agent phase, as infrastructure errors: the agent
 * could not run properly, the provider refused or never answered, a replay ran out.
 */
export function agentFailure(a: AgentOutcome, kind: ExitKind): InfraError | undefined {
  if (a.result.infraError) return new InfraError('agent', a.result.infraError, 'agent_failed');
  const t = a.telemetry;
  if (t?.infraError) return new InfraError('provider', t.infraError, 'replay_exhausted');
  const upstream = t?.details.upstream_failure;
  if (upstream) return new InfraError('provider', upstream.message, upstream.code);
  return providerFailure(a, kind);
}
