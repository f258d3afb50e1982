// The failure taxonomy breakdown (whitepaper §9): counts and shares of each label among scored
// trials, with the label's signal confidence level; infra errors are counted beside, not shared.
import { type ConfidenceLevel, isLabel, LABELS, type RecordLabel } from '../score/labels.js';
import { joinKey, splitKey, Tally, type TrialOutcome, tallyBy } from '../stats/aggregate.js';

export interface TaxonomyRow {
  label: RecordLabel;
  /**
   * Signal confidence level (whitepaper §9.2): 1 file overlap ... 4 symbol lookup; "?" for a
   * label that is not in these rules' taxonomy (strict integrity's, another version's).
   */
  level: ConfidenceLevel | '?';
  count: number;
  /** count / scored trials. */
  share: number;
}

export interface TaxonomyGroup {
  /** The agent, when the trials name it (a run of several agents has a group per agent). */
  agent?: string;
  provider: string;
  model: string;
  mode: string;
  scored: number;
  errors: number;
  counts: Record<string, number>;
}

export interface Taxonomy {
  scored: number;
  errors: number;
  labels: TaxonomyRow[];
  /** Per provider/model/mode, for the stacked-bar chart. */
  groups: TaxonomyGroup[];
  /** Trials of Harbor tasks, and which labels do not apply to them (absent: none ran). */
  harbor?: { trials: number; note: string };
}

/** What a report says when Harbor tasks ran: their labels come from their reward alone. */
export function harborNote(trials: number): string {
  return `${trials} scored trial(s) ran Harbor tasks: their score is the verifier's reward and their label pass, partial_reward or no_reward (or context_window_exceeded); the labels that need a PR's facts (required files, fail_to_pass tests, symbols at base: zero_signal, insufficient_context_read, hallucinated_api, wrong_abstraction_layer, partial_fix_only, missing_cross_language_change, incorrect_fix) do not apply to them.`;
}

export const levelOf = (label: RecordLabel): TaxonomyRow['level'] =>
  isLabel(label) ? LABELS[label].level : '?';

export function taxonomy(trials: TrialOutcome[]): Taxonomy {
  const all = new Tally();
  for (const t of trials) all.add(t);
  const groups = [...tallyBy(trials, (t) => joinKey(t.provider, t.model, t.mode, t.agent ?? ''))]
    .map(([k, tally]): TaxonomyGroup => {
      const [provider, model, mode, agent] = splitKey(k);
      const r = tally.rate();
      return {
        ...(agent && { agent }),
        provider,
        model,
        mode,
        scored: r.scored,
        errors: r.errors,
        counts: tally.labelCounts(),
      };
    })
    .sort((a, b) =>
      joinKey(a.provider, a.model, a.mode, a.agent ?? '') <
      joinKey(b.provider, b.model, b.mode, b.agent ?? '')
        ? -1
        : 1,
    );
  const r = all.rate();
  return {
    scored: r.scored,
    errors: r.errors,
    labels: all.labelEntries().map(([label, count]) => ({
      label,
      level: levelOf(label),
      count,
      share: count / r.scored,
    })),
    groups,
  };
}
