// Tokens and cost of a set of stored trials, per trial and per solved trial, and the change
// between two such sets (compare, the PR comment). Read from the flattened proxy telemetry that
// Store.trialOutcomes selects (tokens_in, tokens_out, cost_usd) or, for full records, from
// details.proxy; a trial the proxy did not count
// (control agents, runs before telemetry) is not in the figures. Per solved: all counted usage,
// infra errors included (they were paid), over the trials that passed: a cheap model that solves
// nothing has no cost per solve.
import type { TrialDetails } from '../trial/details.js';
import { isPass, type TrialOutcome } from './aggregate.js';

/** A stored trial with the proxy's counts; undefined or null: not counted. */
export interface UsageTrial extends Pick<TrialOutcome, 'status' | 'label'> {
  tokens_in?: number | null;
  tokens_out?: number | null;
  cost_usd?: number | null;
  /** Full records (Store.trials) keep the counts here, as the proxy wrote them. */
  details?: TrialDetails;
}

interface Counts {
  tokens: number;
  cost: number | null;
}

function countsOf(t: UsageTrial): Counts | null {
  if (t.tokens_in !== undefined)
    return t.tokens_in === null
      ? null
      : { tokens: t.tokens_in + (t.tokens_out ?? 0), cost: t.cost_usd ?? null };
  const proxy = t.details?.proxy;
  return proxy?.tokens
    ? { tokens: proxy.tokens.input + proxy.tokens.output, cost: proxy.cost_usd ?? null }
    : null;
}

export interface UsageSummary {
  /** Trials the proxy counted. */
  trials: number;
  passed: number;
  /** Input plus output tokens per counted trial; null when none was counted. */
  tokens_per_trial: number | null;
  /** null unless every counted trial has a price. */
  cost_per_trial_usd: number | null;
  /** null when nothing passed (or nothing was counted). */
  tokens_per_solved: number | null;
  cost_per_solved_usd: number | null;
}

export function usageSummary(trials: UsageTrial[]): UsageSummary {
  let counted = 0;
  let passed = 0;
  let tokens = 0;
  let cost: number | null = 0;
  for (const t of trials) {
    const x = countsOf(t);
    if (!x) continue;
    counted++;
    if (isPass(t)) passed++;
    tokens += x.tokens;
    cost = cost === null || x.cost === null ? null : cost + x.cost;
  }
  if (!counted) cost = null;
  const per = (x: number | null, n: number) => (x === null || n === 0 ? null : x / n);
  return {
    trials: counted,
    passed,
    tokens_per_trial: per(counted ? tokens : null, counted),
    cost_per_trial_usd: per(cost, counted),
    tokens_per_solved: per(counted ? tokens : null, passed),
    cost_per_solved_usd: per(cost, passed),
  };
}

/** Base and candidate usage and candidate minus base; a delta is null when a side has no figure. */
export interface UsageComparison {
  base: UsageSummary;
  candidate: UsageSummary;
  delta: {
    tokens_per_trial: number | null;
    cost_per_trial_usd: number | null;
    tokens_per_solved: number | null;
    cost_per_solved_usd: number | null;
  };
}

const minus = (c: number | null, b: number | null) => (c === null || b === null ? null : c - b);

export function usageComparison(base: UsageTrial[], candidate: UsageTrial[]): UsageComparison {
  const b = usageSummary(base);
  const c = usageSummary(candidate);
  return {
    base: b,
    candidate: c,
    delta: {
      tokens_per_trial: minus(c.tokens_per_trial, b.tokens_per_trial),
      cost_per_trial_usd: minus(c.cost_per_trial_usd, b.cost_per_trial_usd),
      tokens_per_solved: minus(c.tokens_per_solved, b.tokens_per_solved),
      cost_per_solved_usd: minus(c.cost_per_solved_usd, b.cost_per_solved_usd),
    },
  };
}
