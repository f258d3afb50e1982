// Context reading (whitepaper §2 "context explosion", §9 insufficient_context_read): how many files
// each model's agent read per trial, how many of the required ones, and the trials labelled
// insufficient_context_read with what they read ("read 41 files, none of the required ones").

import { CONTEXT_EXPLOSION_FILES } from '../score/labels.js';
import { readText } from '../score/rules.js';
import { getOrInit, joinKey, splitKey, type TrialOutcome } from '../stats/aggregate.js';
import type { TrialDetails } from '../trial/details.js';
import { compareKeys, naturalCompare } from './matrix.js';

/** Files read of one trial, flattened by Store.trialOutcomes (or read from full records). */
export interface TrialReading {
  files_read?: number | null;
  required_read?: number | null;
  required_total?: number | null;
  details?: TrialDetails;
}

export interface ReadingRow {
  /** The agent, when the trials name it (a run of several agents has a row per agent). */
  agent?: string;
  provider: string;
  model: string;
  mode: string;
  /** Scored trials whose agent reported its tool calls. */
  trials: number;
  files_read_mean: number | null;
  files_read_max: number | null;
  /** Mean share of the task's required files the agent read. */
  required_read_mean: number | null;
  insufficient_context_read: number;
}

export interface ReadingExample {
  task_id: string;
  agent?: string;
  provider: string;
  model: string;
  mode: string;
  attempt: number;
  files_read: number;
  required_read: number;
  required_total: number;
  /** "read 41 files, none of the required ones" */
  text: string;
}

export interface Reading {
  /** Files read at or above which an insufficient_context_read trial is flagged context_explosion. */
  threshold: number;
  models: ReadingRow[];
  /** insufficient_context_read trials, most files read first (at most MAX_EXAMPLES). */
  examples: ReadingExample[];
  /** insufficient_context_read trials in all. */
  labelled: number;
}

const MAX_EXAMPLES = 20;

function readingOf(
  t: TrialReading,
): { count: number; required: number; total: number } | undefined {
  if (t.files_read !== undefined && t.files_read !== null)
    return { count: t.files_read, required: t.required_read ?? 0, total: t.required_total ?? 0 };
  const f = t.details?.files_read;
  return f ? { count: f.count, required: f.required.length, total: f.required_total } : undefined;
}

export function readingSummary(trials: (TrialOutcome & TrialReading)[]): Reading {
  type Acc = { n: number; sum: number; max: number; share: number; shareN: number; icr: number };
  const groups = new Map<string, Acc>();
  const examples: ReadingExample[] = [];
  let labelled = 0;
  for (const t of trials) {
    if (t.status !== 'scored') continue;
    const r = readingOf(t);
    // Per agent too: a run of several agents never pools their reading.
    const key = joinKey(t.provider, t.model, t.mode, t.agent ?? '');
    const g = getOrInit(groups, key, () => ({ n: 0, sum: 0, max: 0, share: 0, shareN: 0, icr: 0 }));
    if (t.label === 'insufficient_context_read') {
      g.icr++;
      labelled++;
    }
    if (!r) continue;
    g.n++;
    g.sum += r.count;
    g.max = Math.max(g.max, r.count);
    if (r.total > 0) {
      g.share += r.required / r.total;
      g.shareN++;
    }
    if (t.label === 'insufficient_context_read') {
      examples.push({
        task_id: t.task_id,
        ...(t.agent !== undefined && { agent: t.agent }),
        provider: t.provider,
        model: t.model,
        mode: t.mode,
        attempt: t.attempt,
        files_read: r.count,
        required_read: r.required,
        required_total: r.total,
        text: readText(r.count, r.required, r.total),
      });
    }
  }
  const models = [...groups]
    .filter(([, g]) => g.n > 0 || g.icr > 0)
    .map(([k, g]) => {
      const [provider, model, mode, agent] = splitKey(k);
      return {
        ...(agent !== '' && { agent }),
        provider,
        model,
        mode,
        trials: g.n,
        files_read_mean: g.n ? g.sum / g.n : null,
        files_read_max: g.n ? g.max : null,
        required_read_mean: g.shareN ? g.share / g.shareN : null,
        insufficient_context_read: g.icr,
      };
    })
    .sort((a, b) =>
      compareKeys(
        joinKey(a.provider, a.model, a.mode, a.agent ?? ''),
        joinKey(b.provider, b.model, b.mode, b.agent ?? ''),
      ),
    );
  examples.sort(
    (a, b) =>
      b.files_read - a.files_read ||
      naturalCompare(a.task_id, b.task_id) ||
      compareKeys(joinKey(a.model, a.mode), joinKey(b.model, b.mode)) ||
      a.attempt - b.attempt,
  );
  return {
    threshold: CONTEXT_EXPLOSION_FILES,
    models,
    examples: examples.slice(0, MAX_EXAMPLES),
    labelled,
  };
}
