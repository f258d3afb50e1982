// Tokens and cost of a set of stored trials: totals (the report's model rows), per trial and per
// solved trial (the report, the leaderboard, compare), and the change between two such sets
// (compare, the PR comment, the viewer's compare page). The one reader of the proxy's counts:
// from the flattened proxy telemetry that
// Store.trialOutcomes selects (tokens_in, tokens_out, cost_usd) or, for full records, from
// details.proxy; a trial the proxy did not count (control agents, runs before telemetry) is not in the figures. Per solved: all counted usage,
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
  details?: TrialDetails | null;
}

interface Counts {
  input: number;
  output: number;
  cost: number | null;
}

function countsOf(t: UsageTrial): Counts | null {
  if (t.tokens_in !== undefined)
    return t.tokens_in === null
      ? null
      : { input: t.tokens_in, output: t.tokens_out ?? 0, cost: t.cost_usd ?? null };
  const proxy = t.details?.proxy;
  return proxy?.tokens
    ? { input: proxy.tokens.input, output: proxy.tokens.output, cost: proxy.cost_usd ?? null }
    : null;
}

/** Tokens and cost of a group of trials, as the provider proxy counted them. */
export interface UsageTotals {
  /** Trials the proxy counted (LLM agents only). */
  trials: number;
  input_tokens: number;
  output_tokens: number;
  /** null unless every counted trial has a price (providers config). */
  cost_usd: number | null;
}

export function usageTotals(trials: UsageTrial[]): UsageTotals {
  const u: UsageTotals = { trials: 0, input_tokens: 0, output_tokens: 0, cost_usd: 0 };
  for (const t of trials) {
    const x = countsOf(t);
    if (!x) continue;
    u.trials++;
    u.input_tokens += x.input;
    u.output_tokens += x.output;
    u.cost_usd = u.cost_usd === null || x.cost === null ? null : u.cost_usd + x.cost;
  }
  if (u.trials === 0) u.cost_usd = null;
  return u;
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

const per = (x: number | null, n: number) => (x === null || n === 0 ? null : x / n);

/**
 * Per trial and per solved trial from the totals of a set of trials, `passed` of which passed.
 * Compare counts the passes among the counted trials (usageSummary); the report and the
 * leaderboard pass their rate's passes: the same number whenever every passing trial was counted.
 */
export function usagePer(u: UsageTotals, passed: number): UsageSummary {
  const tokens = u.trials ? u.input_tokens + u.output_tokens : null;
  return {
    trials: u.trials,
    passed,
    tokens_per_trial: per(tokens, u.trials),
    cost_per_trial_usd: per(u.cost_usd, u.trials),
    tokens_per_solved: per(tokens, passed),
    cost_per_solved_usd: per(u.cost_usd, passed),
  };
}

export function usageSummary(trials: UsageTrial[]): UsageSummary {
  const counted = trials.filter((t) => countsOf(t) !== null);
  return usagePer(usageTotals(counted), counted.filter(isPass).length);
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
