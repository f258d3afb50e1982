// Markdown summary of one stored run: per model and mode, per task, and the failure labels.
// Infra errors are shown beside the scores, never inside them.
import type { RunRecord, TrialRecord } from '../store/store.js';
import { matrixMarkdown, providerMatrix } from './matrix.js';

const fmt = (n: number | null) => (n === null ? '—' : n.toFixed(2));

function mean(ts: TrialRecord[]): number | null {
  const s = ts.filter((t) => t.status === 'scored');
  return s.length ? s.reduce((a, t) => a + (t.score ?? 0), 0) / s.length : null;
}

function groupBy<T>(xs: T[], key: (x: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of xs) m.set(key(x), [...(m.get(key(x)) ?? []), x]);
  return m;
}

export function markdownSummary(run: RunRecord, trials: TrialRecord[]): string {
  const lines: string[] = [];
  const cfg = run.config as { agent?: string; datasets?: string[] };
  lines.push(`# NanoBench run ${run.id}`, '');
  lines.push(
    `Agent: \`${cfg.agent ?? '?'}\` · status: ${run.status} · trials: ${trials.length}/${run.plan_size}`,
    '',
  );
  lines.push(
    '| provider | model | mode | mean score | passed | scored | infra errors |',
    '|---|---|---|---|---|---|---|',
  );
  for (const [key, ts] of groupBy(trials, (t) => `${t.provider}|${t.model}|${t.mode}`)) {
    const [provider, model, mode] = key.split('|');
    const scored = ts.filter((t) => t.status === 'scored');
    const passed = scored.filter((t) => t.label === 'pass').length;
    lines.push(
      `| ${provider} | ${model} | ${mode} | ${fmt(mean(ts))} | ${passed}/${scored.length} | ${scored.length} | ${ts.length - scored.length} |`,
    );
  }
  lines.push('', '## Provider matrix', '', matrixMarkdown(providerMatrix(trials)));
  const labelled = groupBy(trials, (t) => t.label ?? 'infra_error');
  lines.push('', '## Failure labels', '', '| label | confidence level | trials |', '|---|---|---|');
  for (const [label, ts] of [...labelled].sort((a, b) => b[1].length - a[1].length))
    lines.push(`| ${label} | ${ts[0].confidence_level ?? '—'} | ${ts.length} |`);
  const errors = trials.filter((t) => t.status === 'error');
  if (errors.length) {
    lines.push('', '## Infra errors (excluded from every score)', '');
    for (const t of errors) lines.push(`- ${t.task_id} ${t.mode} #${t.attempt}: ${t.error}`);
  }
  return `${lines.join('\n')}\n`;
}
