// Admission gates (whitepaper §7, §14): each judges one property of a task and, when it fails,
// says how to fix it. Gates are declared as data in runner.ts.
import type { GateId } from '../task/evidence.js';
import type { GateContext } from './context.js';

export type GateOutcome =
  | { status: 'pass'; reason: string; details?: Record<string, unknown> }
  | { status: 'fail'; reason: string; fix: string; details?: Record<string, unknown> };

export interface Gate {
  id: GateId;
  /** One line: what the gate checks. */
  checks: string;
  /** Gates that must not have failed (or been skipped) in this validation for this one to run. */
  needs: GateId[];
  run(ctx: GateContext): Promise<GateOutcome>;
}

export const pass = (reason: string, details?: Record<string, unknown>): GateOutcome => ({
  status: 'pass',
  reason,
  details,
});

export const fail = (
  reason: string,
  fix: string,
  details?: Record<string, unknown>,
): GateOutcome => ({ status: 'fail', reason, fix, details });
