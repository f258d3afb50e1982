// The provider matrix (whitepaper §8): provider -> model -> task -> score -> failure mode.
// One cell per (provider, model, task, mode) with pass@1, mean over N runs, the raw count and
// a 95% Wilson interval on the pass rate. Infra errors sit beside the rates, never inside.
import { wilson } from '../stats/wilson.js';
import type { TrialRecord } from '../store/store.js';

export interface MatrixCell {
  provider: string;
  model: string;
  task_id: string;
  mode: string;
  runs: number;
  /** Did attempt 1 pass? null when attempt 1 was an infra error or is missing. */
  pass_at_1: boolean | null;
  passed: number;
  scored: number;
  errors: number;
  mean_score: number | null;
  ci95: { low: number; high: number };
  /** Label -> count, most frequent first. */
  labels: Record<string, number>;
  non_deterministic: boolean;
}

type CellKey = Pick<TrialRecord, 'provider' | 'model' | 'task_id' | 'mode'>;
const key = (t: CellKey) => [t.provider, t.model, t.task_id, t.mode].join('\u0000');

export function cellOf(ts: TrialRecord[]): MatrixCell {
  const scored = ts.filter((t) => t.status === 'scored');
  const passed = scored.filter((t) => t.label === 'pass').length;
  const first = ts.find((t) => t.attempt === 1);
  const counts = new Map<string, number>();
  for (const t of scored) counts.set(t.label!, (counts.get(t.label!) ?? 0) + 1);
  return {
    provider: ts[0].provider,
    model: ts[0].model,
    task_id: ts[0].task_id,
    mode: ts[0].mode,
    runs: ts.length,
    pass_at_1: first && first.status === 'scored' ? first.label === 'pass' : null,
    passed,
    scored: scored.length,
    errors: ts.length - scored.length,
    mean_score: scored.length
      ? scored.reduce((a, t) => a + (t.score ?? 0), 0) / scored.length
      : null,
    ci95: wilson(passed, scored.length),
    labels: Object.fromEntries([...counts].sort((a, b) => b[1] - a[1])),
    non_deterministic: ts.some((t) => t.flags.includes('non_deterministic')),
  };
}

export function providerMatrix(trials: TrialRecord[]): MatrixCell[] {
  const groups = new Map<string, TrialRecord[]>();
  for (const t of trials) groups.set(key(t), [...(groups.get(key(t)) ?? []), t]);
  return [...groups.values()].map(cellOf).sort((a, b) => key(a).localeCompare(key(b)));
}

const pct = (x: number) => `${Math.round(x * 100)}%`;

export function matrixMarkdown(cells: MatrixCell[]): string {
  const lines = [
    '| provider | model | task | mode | pass@1 | mean score | passed | 95% CI (pass rate) | failure modes |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const c of cells) {
    const labels = Object.entries(c.labels)
      .map(([l, n]) => (c.scored > 1 ? `${l} ×${n}` : l))
      .join(', ');
    const errors = c.errors ? ` (+${c.errors} infra error${c.errors > 1 ? 's' : ''})` : '';
    lines.push(
      `| ${c.provider} | ${c.model} | ${c.task_id} | ${c.mode} | ${c.pass_at_1 === null ? '—' : c.pass_at_1 ? 'pass' : 'fail'} | ${c.mean_score === null ? '—' : c.mean_score.toFixed(2)} | ${c.passed}/${c.scored}${errors} | ${pct(c.ci95.low)}–${pct(c.ci95.high)} | ${labels || '—'}${c.non_deterministic ? ' ⚠ non-deterministic' : ''} |`,
    );
  }
  return `${lines.join('\n')}\n`;
}
