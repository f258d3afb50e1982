// Gate 8, runtime: the verifier needs under 80% of its timeout (timeouts.verifier_sec), so a
// slower machine or a loaded CI runner does not turn a correct fix into a timeout.
import type { GateContext } from './context.js';
import { fail, type GateOutcome, pass } from './types.js';

export const RUNTIME_SHARE = 0.8;

export function runtimeOutcome(slowestMs: number, verifierSec: number): GateOutcome {
  const limitMs = verifierSec * 1000 * RUNTIME_SHARE;
  const s = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
  const details = { slowest_ms: slowestMs, limit_ms: limitMs, verifier_sec: verifierSec };
  if (slowestMs < limitMs)
    return pass(
      `slowest verifier run ${s(slowestMs)}, under 80% of verifier_sec ${verifierSec}s`,
      details,
    );
  // Room for twice the observed time keeps the run under the 80% line with a margin.
  const suggested = Math.ceil((slowestMs * 2) / 1000 / RUNTIME_SHARE);
  return fail(
    `slowest verifier run ${s(slowestMs)}, over 80% of verifier_sec ${verifierSec}s (${s(limitMs)})`,
    `raise timeouts.verifier_sec to at least ${suggested}, or narrow the suites' commands to the test files the PR touches`,
    details,
  );
}

export async function runtimeGate(ctx: GateContext): Promise<GateOutcome> {
  if (ctx.verifierMs.length === 0) await ctx.goldenRun();
  if (ctx.verifierMs.length === 0)
    return fail(
      'the verifier never ran (the golden patch does not apply)',
      'fix the verification gate first',
    );
  return runtimeOutcome(Math.max(...ctx.verifierMs), ctx.task.timeouts.verifier_sec);
}
