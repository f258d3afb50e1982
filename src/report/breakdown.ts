// The aggregated baseline report (whitepaper §8): pass rates broken down by provider, model,
// reasoning category, language, domain, token density and tier, each split by mode (hinted and
// navigation rates answer different questions and are never pooled).
import {
  joinKey,
  type Rate,
  severalAgents,
  splitKey,
  type TrialOutcome,
  tallyBy,
  withAgent,
} from '../stats/aggregate.js';
import type { TaskMeta, TaskMetaMap } from './task-meta.js';

export const DIMENSIONS = [
  'provider',
  'model',
  'reasoning_category',
  'language',
  'domain',
  'token_density',
  'tier',
] as const;
export type Dimension = (typeof DIMENSIONS)[number];

export interface BreakdownRow {
  /** The agent, in a run of several (`--agent nanocoder,bare`): their rates are never pooled. */
  agent?: string;
  value: string;
  mode: string;
  rate: Rate;
}

export interface Breakdown {
  dimension: Dimension;
  rows: BreakdownRow[];
}

/** Token-estimate buckets, doubling from 1k tokens; the label list is also the sort order. */
const BUCKETS = [1000, 2000, 4000, 8000, 16000];
export const TOKEN_BUCKETS = ['<1k', '1k-2k', '2k-4k', '4k-8k', '8k-16k', '>=16k'];

export function tokenBucket(tokens: number): string {
  const i = BUCKETS.findIndex((b) => tokens < b);
  return TOKEN_BUCKETS[i === -1 ? BUCKETS.length : i];
}

const UNKNOWN = '(unknown task)';

function valuesOf(d: Dimension, t: TrialOutcome, meta: TaskMeta | undefined): string[] {
  switch (d) {
    case 'provider':
      return [t.provider];
    case 'model':
      return [`${t.provider}/${t.model}`];
    case 'reasoning_category':
      return [meta?.reasoning_category ?? UNKNOWN];
    case 'language':
      // A polyglot task counts under each of its languages.
      return meta?.languages ?? [UNKNOWN];
    case 'domain':
      return [meta?.domain ?? UNKNOWN];
    case 'token_density':
      return [meta ? tokenBucket(meta.token_estimate) : UNKNOWN];
    case 'tier':
      return [meta ? `tier ${meta.tier}` : UNKNOWN];
  }
}

function sortValue(d: Dimension, v: string): string | number {
  if (d === 'token_density') return TOKEN_BUCKETS.indexOf(v);
  return v;
}

/**
 * One breakdown per dimension. Without task metadata only provider and model can be computed.
 * Trials are scanned once per dimension: O(dimensions x trials).
 */
export function breakdowns(trials: TrialOutcome[], tasks: TaskMetaMap | null): Breakdown[] {
  const dims = tasks ? DIMENSIONS : DIMENSIONS.filter((d) => d === 'provider' || d === 'model');
  const byAgent = severalAgents(trials);
  return dims.map((dimension) => {
    const tallies = tallyBy(trials, (t) =>
      valuesOf(dimension, t, tasks?.[t.task_id]).map((v) =>
        joinKey(v, t.mode, byAgent ? (t.agent ?? '') : ''),
      ),
    );
    const rows = [...tallies].map(([k, tally]) => {
      const [value, mode, agent] = splitKey(k);
      return { ...(agent !== '' && { agent }), value, mode, rate: tally.rate() };
    });
    const cmp = (x: string | number, y: string | number) => (x < y ? -1 : x > y ? 1 : 0);
    rows.sort(
      (a, b) =>
        cmp(sortValue(dimension, a.value), sortValue(dimension, b.value)) ||
        cmp(a.agent ?? '', b.agent ?? '') ||
        cmp(a.mode, b.mode),
    );
    return { dimension, rows };
  });
}

/** A row's name: its value, after its agent in a run of several ("bare · python"). */
export const breakdownValue = (row: BreakdownRow) => withAgent(row.agent, row.value);
