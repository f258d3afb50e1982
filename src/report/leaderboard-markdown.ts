// The leaderboard as markdown (fits a PR comment or a README) and the words both renderings use.

import { MIN_PAIRED_TASKS } from '../stats/paired.js';
import { ciText, modelName, pct, plural, score2 } from './format.js';
import type { Leaderboard, LeaderboardRow, Separation } from './leaderboard.js';

/** "(oracle)", "scripted/competent", or "command: p/m" when a non-Nanocoder agent names a model. */
export function rowName(r: Pick<LeaderboardRow, 'agent' | 'provider' | 'model'>): string {
  const name = modelName(r.provider, r.model, r.agent);
  return r.provider !== 'none' && r.agent !== 'nanocoder' ? `${r.agent}: ${name}` : name;
}

/** "=2" for a rank shared with the row above. */
export const rankText = (r: LeaderboardRow) => `${r.tied ? '=' : ''}${r.rank}`;

const compact = (x: number) =>
  x >= 1e6
    ? `${(x / 1e6).toFixed(1)}M`
    : x >= 1e3
      ? `${(x / 1e3).toFixed(1)}k`
      : `${Math.round(x)}`;
export const tokensText = (x: number | null) => (x === null ? '—' : compact(x));
export const usdText = (x: number | null) =>
  x === null ? '—' : x >= 1 ? `$${x.toFixed(2)}` : `$${x.toPrecision(2)}`;

export const passAt1Text = (r: LeaderboardRow) =>
  r.tasks.pass_rate === null ? '—' : `${pct(r.tasks.pass_rate)} [${ciText(r.tasks.ci95)}]`;
export const meanScoreText = (r: LeaderboardRow) =>
  r.tasks.mean_score === null
    ? '—'
    : `${score2(r.tasks.mean_score)} [${score2(r.tasks.mean_score_ci95.low)}–${score2(r.tasks.mean_score_ci95.high)}]`;
export const kOfNText = (r: LeaderboardRow) => `${r.trials.passed}/${r.trials.scored}`;
export const errorsText = (r: LeaderboardRow) =>
  r.trials.errors === 0
    ? '0'
    : `${r.trials.errors} (${r.errors_by_cause.map((e) => `${e.cause} ×${e.count}`).join(', ')})`;
export const labelsText = (r: LeaderboardRow) =>
  r.failure_labels.map((l) => `${l.label} ×${l.count}`).join(', ') || '—';
export const coverageText = (r: LeaderboardRow) =>
  r.coverage.dataset_tasks === null
    ? `${r.coverage.tasks}`
    : `${r.coverage.tasks}/${r.coverage.dataset_tasks}${r.coverage.whole ? '' : ' (partial)'}`;

/** Why a row shares the rank above, or what separates it, in words. */
export function separationText(s: Separation): string {
  const shared = plural(s.shared_tasks, 'shared task');
  if (s.rule === 'overlap')
    return s.separated
      ? `${shared} (too few for the paired test, which needs ${MIN_PAIRED_TASKS}): their 95% intervals on them do not overlap`
      : s.shared_tasks === 0
        ? 'no shared task: nothing to compare them on'
        : `${shared} (too few for the paired test, which needs ${MIN_PAIRED_TASKS}): their 95% intervals on them overlap`;
  const p = `p = ${s.p_value?.toFixed(3)}, Holm ${s.p_holm?.toFixed(3)}`;
  return s.separated
    ? `paired test over ${shared}: worse beyond noise (${p})`
    : `paired test over ${shared}: not distinguishable from noise (${p})`;
}

/** "; worse beyond noise than: a, b" for rows further up than `above` that set the rank too. */
export function belowText(r: LeaderboardRow, above: LeaderboardRow): string {
  const further = r.below.filter((n) => n !== modelName(above.provider, above.model, above.agent));
  return further.length ? `; worse beyond noise than: ${further.join(', ')}` : '';
}

export function leaderboardMarkdown(b: Leaderboard): string {
  const out: string[] = [];
  const size =
    b.dataset_tasks === null
      ? ''
      : ` (${plural(b.dataset_tasks, 'task')}${b.dataset_tasks_source === 'planned' ? ' planned by its runs' : ''})`;
  out.push(`## Leaderboard: ${b.dataset}${size}, ${b.mode} mode`, '');
  out.push(
    `${plural(b.runs.length, 'run')}. Ranked by pass@1 counted per task (each task once, its mean over runs), 95% interval over tasks; a row's rank is one more than the rows above it that are better beyond noise, so rows the data cannot separate share a rank (=): each row is compared with every row above it, task by task on the tasks both ran (paired sign-flip test, Holm-corrected over the pairs, family-wise α ${b.alpha}; under ${MIN_PAIRED_TASKS} shared tasks the overlap of their 95% intervals decides). Infra errors are beside the rates, never inside. Cost and tokens per solved task: all the row's usage divided by its passing trials.`,
    '',
  );
  if (!b.rows.length) {
    out.push('No trials stored for this dataset version and mode.', '');
    return `${out.join('\n')}\n`;
  }
  out.push(
    '| rank | model | Nanocoder | pass@1 [95% CI] | mean score [95% CI] | k/N | infra errors | tokens/trial | cost/trial | tokens/solved | cost/solved | top failures | tasks |',
    '|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|',
  );
  for (const r of b.rows)
    out.push(
      `| ${rankText(r)} | ${rowName(r)} | ${r.nanocoder_version ?? '—'} | ${passAt1Text(r)} | ${meanScoreText(r)} | ${kOfNText(r)} | ${errorsText(r)} | ${tokensText(r.usage.tokens_per_trial)} | ${usdText(r.usage.cost_per_trial_usd)} | ${tokensText(r.usage.tokens_per_solved)} | ${usdText(r.usage.cost_per_solved_usd)} | ${labelsText(r)} | ${coverageText(r)} |`,
    );
  out.push('', 'Each row against the one above:', '');
  for (let i = 1; i < b.rows.length; i++) {
    const r = b.rows[i];
    out.push(
      `- ${rankText(r)} ${rowName(r)} vs ${rowName(b.rows[i - 1])}: ${separationText(r.versus_above!)}${belowText(r, b.rows[i - 1])}`,
    );
  }
  if (b.rows.length === 1) out.push('- (one row: nothing to compare)');
  out.push('', `Runs: ${b.runs.map((r) => r.run_id).join(', ')}`);
  return `${out.join('\n')}\n`;
}
