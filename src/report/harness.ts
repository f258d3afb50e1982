// The harness delta (issue 29): what an agent's harness adds to its model, measured against the
// bare agent (src/agent/bare.ts) on the same tasks, models, modes and runs of one run. Per
// provider, model and mode: the harness's task-weighted mean score minus bare's, with the paired
// interval and the paired sign-flip test of `compare` (src/stats/paired.ts; bare is the base,
// the harness the candidate), Holm-corrected over the groups tested; both label distributions
// side by side; tokens and cost per solved task (src/stats/usage.ts).
import type { RecordLabel } from '../score/labels.js';
import {
  getOrInit,
  joinKey,
  splitKey,
  type Tally,
  type TrialOutcome,
  tallyOf,
} from '../stats/aggregate.js';
import { MIN_PAIRED_TASKS, type PairedDifference } from '../stats/paired.js';
import { pairedFamily } from '../stats/paired-family.js';
import { type TaskWeightedRate, taskResults, taskWeightedRate } from '../stats/tasks.js';
import { type UsageSummary, type UsageTrial, usageSummary } from '../stats/usage.js';

/** The baseline every harness is measured against. */
export const BASELINE_AGENT = 'bare';

type Trial = TrialOutcome & UsageTrial;

export interface HarnessSide {
  agent: string;
  tasks: TaskWeightedRate;
  /** Label -> count among scored trials, most frequent first. */
  labels: Record<string, number>;
  usage: UsageSummary;
}

export interface HarnessDelta {
  provider: string;
  model: string;
  mode: string;
  harness: HarnessSide;
  bare: HarnessSide;
  /** Harness minus bare over the tasks both scored (mean_score: the headline). */
  paired: Pick<PairedDifference, 'tasks' | 'mean_score' | 'pass_rate' | 'tasks_changed'> & {
    p_value: number;
    p_holm: number | null;
    /** null: fewer than MIN_PAIRED_TASKS shared tasks, no paired verdict possible. */
    verdict: 'harness better' | 'bare better' | 'not distinguishable from noise' | null;
  };
  /** Per label: harness count minus bare count (labels the harness adds or removes). */
  label_shift: { label: RecordLabel; harness: number; bare: number; delta: number }[];
}

/** The harness deltas of a run's trials: empty unless bare and another agent both ran. */
export function harnessDeltas(trials: Iterable<Trial>): HarnessDelta[] {
  const groups = new Map<string, Map<string, Trial[]>>();
  for (const t of trials) {
    if (!t.agent || t.provider === 'none') continue;
    const g = getOrInit(groups, joinKey(t.provider, t.model, t.mode), () => new Map());
    getOrInit(g, t.agent, () => []).push(t);
  }
  const pairs: { key: string; harness: string; h: Trial[]; b: Trial[] }[] = [];
  for (const [key, byAgent] of [...groups].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const b = byAgent.get(BASELINE_AGENT);
    if (!b) continue;
    for (const [agent, h] of [...byAgent].sort(([x], [y]) => (x < y ? -1 : 1)))
      if (agent !== BASELINE_AGENT) pairs.push({ key, harness: agent, h, b });
  }
  const paired = pairedFamily(pairs.map((p) => [taskResults(p.b), taskResults(p.h)] as const));
  return pairs.map((p, i) => {
    const [provider, model, mode] = splitKey(p.key);
    const d = paired[i];
    const [ht, bt] = [tallyOf(p.h), tallyOf(p.b)];
    const harness = side(p.harness, p.h, ht);
    const bare = side(BASELINE_AGENT, p.b, bt);
    return {
      provider,
      model,
      mode,
      harness,
      bare,
      paired: {
        tasks: d.tasks,
        mean_score: d.mean_score,
        pass_rate: d.pass_rate,
        tasks_changed: d.tasks_changed,
        p_value: d.test.p_value,
        p_holm: d.p_holm,
        verdict:
          d.verdict === 'improvement'
            ? 'harness better'
            : d.verdict === 'regression'
              ? 'bare better'
              : d.verdict,
      },
      label_shift: labelShift(ht, bt),
    };
  });
}

function side(agent: string, trials: Trial[], tally: Tally): HarnessSide {
  return {
    agent,
    tasks: taskWeightedRate(taskResults(trials)),
    labels: tally.labelCounts(),
    usage: usageSummary(trials),
  };
}

function labelShift(h: Tally, b: Tally): HarnessDelta['label_shift'] {
  const labels = [...new Set([...h.labels.keys(), ...b.labels.keys()])];
  const count = (t: Tally, label: RecordLabel) => t.labels.get(label) ?? 0;
  return labels
    .map((label) => ({
      label,
      harness: count(h, label),
      bare: count(b, label),
      delta: count(h, label) - count(b, label),
    }))
    .sort((x, y) => Math.abs(y.delta) - Math.abs(x.delta) || (x.label < y.label ? -1 : 1));
}

// ---- the same table for the markdown and HTML reports ----

export const HARNESS_HEADER = [
  'model',
  'mode',
  'tasks',
  'harness mean score',
  'bare mean score',
  'Δ mean score [95% CI]',
  'Δ pass rate',
  'verdict (paired)',
  'tokens / solved (harness · bare)',
  'cost / solved (harness · bare)',
  'labels (harness − bare)',
];

const signed = (x: number | null) =>
  x === null ? '—' : `${x > 0 ? '+' : x < 0 ? '−' : '±'}${Math.abs(x).toFixed(2)}`;
const kilo = (x: number | null) =>
  x === null ? '—' : x >= 1000 ? `${(x / 1000).toFixed(1)}k` : String(Math.round(x));
const usd = (x: number | null) => (x === null ? '—' : `$${x.toFixed(4)}`);

/** One row per delta, as plain text cells (each renderer escapes them). */
export function harnessRows(deltas: HarnessDelta[]): string[][] {
  return deltas.map((d) => {
    const m = d.paired.mean_score;
    const p = d.paired.pass_rate;
    const ci = m.estimate === null ? '' : ` [${signed(m.ci95.low)}, ${signed(m.ci95.high)}]`;
    const shifts = d.label_shift
      .filter((s) => s.delta !== 0)
      .map((s) => `${s.label} ${s.delta > 0 ? '+' : '−'}${Math.abs(s.delta)}`)
      .join(', ');
    return [
      `${d.harness.agent} vs bare · ${d.provider}/${d.model}`,
      d.mode,
      String(d.paired.tasks),
      d.harness.tasks.mean_score === null ? '—' : d.harness.tasks.mean_score.toFixed(2),
      d.bare.tasks.mean_score === null ? '—' : d.bare.tasks.mean_score.toFixed(2),
      `${signed(m.estimate)}${ci}`,
      p.estimate === null ? '—' : `${signed(p.estimate * 100).replace(/\.\d+$/, '')} pp`,
      d.paired.verdict === null
        ? `too few tasks (< ${MIN_PAIRED_TASKS}) for a paired verdict`
        : `${d.paired.verdict} (p_holm ${d.paired.p_holm?.toPrecision(2)})`,
      `${kilo(d.harness.usage.tokens_per_solved)} · ${kilo(d.bare.usage.tokens_per_solved)}`,
      `${usd(d.harness.usage.cost_per_solved_usd)} · ${usd(d.bare.usage.cost_per_solved_usd)}`,
      shifts || 'same labels',
    ];
  });
}

/** What the section says about its numbers (both renderers). */
export const HARNESS_SENTENCE = `What the agent's harness adds to the model: its task-weighted mean score minus the bare agent's (the model alone, src/agent/bare.ts), on the tasks both scored in this run, with a 95% t interval over tasks; the verdict is compare's paired sign-flip test over tasks, Holm-corrected over the rows tested (a row needs ${MIN_PAIRED_TASKS} shared tasks). Labels: the harness's count minus bare's, per label. Per solved: all counted tokens (or dollars) over the trials that passed.`;
