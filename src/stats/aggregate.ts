// Aggregation: trials -> rates. A rate counts scored trials only: k = passed, n = scored, with a
// 95% Wilson interval on k/n. Infra errors are counted beside the rate and never enter k, n or
// the mean (an infrastructure failure says nothing about the agent).
import type { RecordLabel } from '../score/labels.js';
import { type Interval, wilson } from './wilson.js';

/** Where a trial sits: its cell of the matrix and its flags. */
interface TrialCell {
  task_id: string;
  /** The agent that ran it; a run of several agents (`--agent nanocoder,bare`) groups by it. */
  agent?: string;
  provider: string;
  model: string;
  mode: string;
  attempt: number;
  flags: string[];
}

/**
 * The fields statistics read from a trial (a subset of the stored TrialRecord): a scored trial's
 * score and label, or an infra error, which has neither.
 */
export type TrialOutcome = TrialCell &
  (
    | { status: 'scored'; score: number; label: RecordLabel }
    | { status: 'error'; score: null; label: null }
  );

export interface Rate {
  /** Scored trials plus infra errors. */
  trials: number;
  scored: number;
  passed: number;
  errors: number;
  /** passed / scored; null when nothing was scored. */
  pass_rate: number | null;
  ci95: Interval;
  /** Mean score over the scored trials (partial credit included); null when nothing was scored. */
  mean_score: number | null;
  /** Some trial ran without a pinned temperature. */
  non_deterministic: boolean;
}

export const NON_DETERMINISTIC = 'non_deterministic';

export const isPass = (t: Pick<TrialOutcome, 'status' | 'label'>) =>
  t.status === 'scored' && t.label === 'pass';

/** Running counts for one group of trials; O(1) memory per group whatever its size. */
export class Tally {
  trials = 0;
  scored = 0;
  passed = 0;
  scoreSum = 0;
  nonDeterministic = false;
  readonly labels = new Map<RecordLabel, number>();

  add(t: TrialOutcome): this {
    this.trials++;
    if (t.flags.includes(NON_DETERMINISTIC)) this.nonDeterministic = true;
    if (t.status !== 'scored') return this;
    this.scored++;
    this.scoreSum += t.score;
    if (t.label === 'pass') this.passed++;
    this.labels.set(t.label, (this.labels.get(t.label) ?? 0) + 1);
    return this;
  }

  rate(): Rate {
    return {
      trials: this.trials,
      scored: this.scored,
      passed: this.passed,
      errors: this.trials - this.scored,
      pass_rate: this.scored ? this.passed / this.scored : null,
      ci95: wilson(this.passed, this.scored),
      mean_score: this.scored ? this.scoreSum / this.scored : null,
      non_deterministic: this.nonDeterministic,
    };
  }

  /** Label and count among scored trials, most frequent first (ties by name, for stable output). */
  labelEntries(): [RecordLabel, number][] {
    return [...this.labels].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  }

  /** labelEntries as an object, in that order (JSON object keys are strings). */
  labelCounts(): Record<string, number> {
    return Object.fromEntries(this.labelEntries());
  }
}

/**
 * Tally trials by key. A key function may return several keys (a polyglot task counts under
 * each of its languages) or undefined to skip the trial.
 */
export function tallyBy<T extends TrialOutcome>(
  trials: Iterable<T>,
  key: (t: T) => string | string[] | undefined,
): Map<string, Tally> {
  const out = new Map<string, Tally>();
  for (const t of trials) {
    const k = key(t);
    if (k === undefined) continue;
    for (const one of Array.isArray(k) ? k : [k]) {
      getOrInit(out, one, () => new Tally()).add(t);
    }
  }
  return out;
}

export function tallyOf(trials: Iterable<TrialOutcome>): Tally {
  const t = new Tally();
  for (const x of trials) t.add(x);
  return t;
}

export const rateOf = (trials: Iterable<TrialOutcome>): Rate => tallyOf(trials).rate();

/** The value at key, created by init() on first use. */
export function getOrInit<K, V>(m: Map<K, V>, key: K, init: () => V): V {
  let v = m.get(key);
  if (v === undefined) {
    v = init();
    m.set(key, v);
  }
  return v;
}

/** Group keys are joined with NUL: no provider, model, task id or mode contains one. */
export const joinKey = (...parts: string[]) => parts.join('\u0000');
export const splitKey = (key: string) => key.split('\u0000');

/** Trials of more than one agent (`--agent nanocoder,bare`): whatever groups them, groups by agent too. */
export const severalAgents = (trials: readonly { agent?: string }[]) =>
  new Set(trials.map((t) => t.agent ?? '')).size > 1;

/** A name after its agent, where the agent is named ("bare · p/m"); the name alone otherwise. */
export const withAgent = (agent: string | undefined, name: string) =>
  agent ? `${agent} · ${name}` : name;

const DIGITS = /\d+|\D+/g;

/**
 * Natural order: runs of digits compare by value (task-2 before task-10, 007 after 7 only when
 * otherwise equal), everything else by code unit. Deterministic on every machine (no locale).
 */
export function naturalCompare(a: string, b: string): number {
  if (a === b) return 0;
  const x = a.match(DIGITS) ?? [];
  const y = b.match(DIGITS) ?? [];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const p = x[i];
    const q = y[i];
    if (p === q) continue;
    const pd = p.charCodeAt(0) >= 48 && p.charCodeAt(0) <= 57;
    const qd = q.charCodeAt(0) >= 48 && q.charCodeAt(0) <= 57;
    if (pd && qd) {
      const ps = p.replace(/^0+(?=\d)/, '');
      const qs = q.replace(/^0+(?=\d)/, '');
      if (ps.length !== qs.length) return ps.length - qs.length;
      if (ps !== qs) return ps < qs ? -1 : 1;
      continue; // same value, different zero padding: decided by the plain order below
    }
    return p < q ? -1 : 1;
  }
  return x.length - y.length || (a < b ? -1 : 1);
}
