// The failure taxonomy: every label with its score and signal confidence level (whitepaper §9.2).
import type { STRICT_LABEL } from '../integrity/flags.js';

export const LABELS = {
  pass: { level: '2', base: 1.0 },
  context_window_exceeded: { level: '3', base: 0 },
  insufficient_context_read: { level: '1', base: 0 },
  zero_signal: { level: '1', base: 0 },
  hallucinated_api: { level: '4', base: 0 },
  wrong_abstraction_layer: { level: '4', base: 0 },
  partial_fix_only: { level: '1+2', base: 0.5 },
  missing_cross_language_change: { level: '1', base: 0 },
  incorrect_fix: { level: '2', base: 0 },
  /** The bare agent's answer could not be parsed or applied: nothing was changed. */
  unusable_edit: { level: '1', base: 0 },
  /** Reported instead of the two Level-4 labels when the human audit agrees < 90%. */
  implementation_error: { level: '4', base: 0 },
  // Harbor tasks (src/harbor/score.ts): the verifier's reward is the score; the labels above that
  // need a PR's facts (required files, fail_to_pass, symbols) do not apply to them.
  /** A Harbor task's reward between 0 and 1 (the score is the reward). */
  partial_reward: { level: '2', base: 0 },
  /** A Harbor task's reward of 0 (or less). */
  no_reward: { level: '2', base: 0 },
} as const;

/** The labels a Harbor task can get; every other label needs facts only PR tasks have. */
export const HARBOR_LABELS = ['pass', 'partial_reward', 'no_reward', 'context_window_exceeded'];

export type Label = keyof typeof LABELS;
export type ConfidenceLevel = (typeof LABELS)[Label]['level'];

export const isLabel = (s: string | null): s is Label => s !== null && Object.hasOwn(LABELS, s);

/**
 * A label another version of the scoring rules gave that these rules do not know (a store a
 * newer NanoBench wrote, a label since renamed). A stored record keeps it as it is: reports count
 * and show it, merge copies it. The brand keeps it out of `Label`, so nothing looks it up in
 * LABELS or RULES without isLabel.
 */
export type OtherLabel = string & { readonly otherScoringRules: true };

/**
 * The label a trial record holds: the rules' (LABELS), the strict integrity mode's
 * (src/integrity/flags.ts), or, read back from a store, another version's.
 */
export type RecordLabel = Label | typeof STRICT_LABEL | OtherLabel;

/** Navigation mode: a failed run that touched a required file still earns this much. */
export const PATHFINDING_CREDIT = 0.1;

/**
 * The whitepaper's "files_read is high" (§9, insufficient_context_read; §2 calls it context
 * explosion, "reading dozens of irrelevant files"): at least this many distinct files read flags
 * an insufficient_context_read run `context_explosion`. The label itself is rule 2 of §9.1 and
 * does not depend on it. The whitepaper gives no number; ten is more than a fix usually needs to
 * read and reachable in any repository a benchmark task comes from (each example repository has
 * more than ten files outside its tasks' required_files).
 */
export const CONTEXT_EXPLOSION_FILES = 10;
