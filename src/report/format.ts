// Number and name formatting shared by the markdown and HTML renderers, so both print the same.
import { agentNames } from '../agent/agents.js';
import { type Rate, withAgent } from '../stats/aggregate.js';
import type { TaskWeightedRate } from '../stats/tasks.js';
import type { UsageComparison } from '../stats/usage.js';
import type { Interval } from '../stats/wilson.js';

export const pct = (x: number) => `${Math.round(x * 100)}%`;

/** "21–100%" */
export const ciText = (ci: Interval) => `${Math.round(ci.low * 100)}–${pct(ci.high)}`;

export const score2 = (x: number | null) => (x === null ? '—' : x.toFixed(2));

/** "3/5 (60%)"; "0/0" when nothing was scored. */
export const passedText = (r: Pick<Rate, 'passed' | 'scored'>) =>
  r.scored ? `${r.passed}/${r.scored} (${pct(r.passed / r.scored)})` : '0/0';

/** A rate over tasks: "52% [38–66%]"; "—" when no task was scored. */
export const taskRateText = (r: TaskWeightedRate) =>
  r.pass_rate === null ? '—' : `${pct(r.pass_rate)} [${ciText(r.ci95)}]`;

/** "±16 pp", the half-width of a rate's interval. */
export const halfWidthText = (r: TaskWeightedRate) =>
  r.half_width === null ? '—' : `±${Math.round(r.half_width * 100)} pp`;

/**
 * How finely one run knows its rates, in words: "With 31 tasks each rate is known to within
 * ±16 pp (...); smaller differences between models read as noise."
 */
export function precisionSentence(rows: { tasks: TaskWeightedRate }[]): string {
  const known = rows.map((r) => r.tasks).filter((t) => t.half_width !== null);
  if (!known.length) return '';
  const h = known.map((t) => Math.round((t.half_width ?? 0) * 100));
  const n = known.map((t) => t.tasks);
  const span = (xs: number[]) =>
    Math.min(...xs) === Math.max(...xs) ? `${xs[0]}` : `${Math.min(...xs)}–${Math.max(...xs)}`;
  return `With ${span(n)} task${Math.max(...n) === 1 ? '' : 's'} each rate here is known to within ±${span(h)} pp (the half-width of its 95% interval); differences smaller than that read as noise.`;
}

/** Signed percentage points: "+40 pp". */
export const ppText = (x: number | null) =>
  x === null ? '—' : `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(Math.round(x * 100))} pp`;

export const ppInterval = (i: Interval) =>
  `[${ppText(i.low).replace(' pp', '')}, ${ppText(i.high).replace(' pp', '')}] pp`;

/** Control agents run without a model (provider "none"): name them by the agent instead. */
export const modelName = (provider: string, model: string, agent: string) =>
  provider === 'none' ? `(${agent})` : `${provider}/${model}`;

/**
 * A row's name: in a run of several agents (`--agent nanocoder,bare`, a row per agent) the
 * agent and the model, else the model's name.
 */
export const rowName = (
  row: { agent?: string; provider: string; model: string },
  runAgent: string,
) =>
  row.agent && agentNames(runAgent).length > 1
    ? withAgent(row.agent, modelName(row.provider, row.model, row.agent))
    : modelName(row.provider, row.model, runAgent);

export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

export const NON_DET_MARK = '⚠ non-deterministic';
export const PRE_CUTOFF_MARK = '⚠ merged before cutoff';
export const UNDERSAMPLED_MARK = 'undersampled';
export const NO_EVIDENCE_MARK = 'task without passing gate evidence';

/** What each evidence status means, in a report's words. */
export const EVIDENCE_WORDS: Record<string, string> = {
  missing: 'never validated',
  stale: 'changed since it was validated',
  failing: 'failed a gate when last validated',
};

export const DIMENSION_TITLES: Record<string, string> = {
  provider: 'provider',
  model: 'model',
  reasoning_category: 'reasoning category',
  language: 'language',
  domain: 'domain',
  token_density: 'token density (task token estimate)',
  tier: 'complexity tier',
};

const kilo = (n: number) =>
  n >= 10_000 ? `${Math.round(n / 1000)}k` : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);

/** "in / out" tokens per trial on average, as the provider proxy counted them. */
export const tokensText = (u: { trials: number; input_tokens: number; output_tokens: number }) =>
  u.trials
    ? `${kilo(Math.round(u.input_tokens / u.trials))} / ${kilo(Math.round(u.output_tokens / u.trials))}`
    : '—';

export const costText = (u: { trials: number; cost_usd: number | null }) =>
  u.trials && u.cost_usd !== null ? `$${u.cost_usd.toFixed(4)}` : '—';

// Reports show cost per trial and per solved trial, not a total: a total beside per-trial tokens
// reads as per trial, and a cheap model that solves nothing is not cheap.
/** Dollars per counted trial. */
export const costPerTrialText = (u: { trials: number; cost_usd: number | null }) =>
  u.trials && u.cost_usd !== null ? `$${(u.cost_usd / u.trials).toFixed(4)}` : '—';

/** Dollars spent (on every counted trial) per trial that passed; none passed: no figure. */
export const costPerSolvedText = (
  u: { trials: number; cost_usd: number | null },
  solved: number,
) => (u.trials && u.cost_usd !== null && solved > 0 ? `$${(u.cost_usd / solved).toFixed(4)}` : '—');

const tokenCount = (x: number) =>
  x >= 1e6
    ? `${(x / 1e6).toFixed(1)}M`
    : x >= 1e3
      ? `${(x / 1e3).toFixed(1)}k`
      : `${Math.round(x)}`;
const dollars = (x: number) => (x >= 1 ? `$${x.toFixed(2)}` : `$${Number(x.toPrecision(2))}`);

/** "12.0k → 15.3k (+3.3k)": base → candidate with the change; "—" when neither side counted. */
function changeText(
  b: number | null,
  c: number | null,
  d: number | null,
  f: (x: number) => string,
) {
  if (b === null && c === null) return '—';
  const side = (x: number | null) => (x === null ? '—' : f(x));
  const sign = d === null ? '' : d > 0 ? '+' : d < 0 ? '−' : '±';
  return `${side(b)} → ${side(c)}${d === null ? '' : ` (${sign}${f(Math.abs(d))})`}`;
}

/** Tokens (in + out) per trial, base → candidate (Δ). */
export const tokensChangeText = (u: UsageComparison) =>
  changeText(
    u.base.tokens_per_trial,
    u.candidate.tokens_per_trial,
    u.delta.tokens_per_trial,
    tokenCount,
  );

/** Dollars per trial or per solved trial, base → candidate (Δ). */
export const costChangeText = (u: UsageComparison, per: 'trial' | 'solved') =>
  per === 'trial'
    ? changeText(
        u.base.cost_per_trial_usd,
        u.candidate.cost_per_trial_usd,
        u.delta.cost_per_trial_usd,
        dollars,
      )
    : changeText(
        u.base.cost_per_solved_usd,
        u.candidate.cost_per_solved_usd,
        u.delta.cost_per_solved_usd,
        dollars,
      );
