// `nanobench runs`: the stored runs, newest first, as an aligned table (or --json).
import type { Command } from 'commander';
import { ciText, pct } from '../report/format.js';
import { listRuns, type RunListRow } from '../report/run-list.js';
import { Store } from '../store/store.js';
import type { Io } from './progress.js';
import { DEFAULT_DB } from './run.js';

const EXAMPLES = `
Pass rate: k/n over the run's scored trials with a 95% Wilson interval; infra errors beside it.
Per-model rates (each task counted once): nanobench report RUN, or nanobench leaderboard.

Examples:
  nanobench runs
  nanobench runs --db .nanobench/demo.sqlite --json`;

const COLUMNS: [string, (r: RunListRow) => string][] = [
  ['run', (r) => r.id],
  ['created', (r) => r.created_at.slice(0, 16).replace('T', ' ')],
  ['agent', (r) => r.agent],
  ['nanocoder', (r) => r.nanocoder_version ?? '—'],
  ['models', (r) => r.models.join(',') || '—'],
  ['dataset', (r) => r.datasets.join(',')],
  ['sandbox', (r) => r.sandbox ?? '—'],
  ['status', (r) => r.status],
  ['trials', (r) => `${r.trials}/${r.plan_size}`],
  ['passed', (r) => (r.scored ? `${r.passed}/${r.scored} ${pct(r.pass_rate ?? 0)}` : '—')],
  ['95% CI', (r) => (r.scored ? ciText(r.ci95) : '—')],
  ['errors', (r) => String(r.errors)],
];
/** Columns of numbers are right-aligned, under a right-aligned header. */
const NUMERIC = new Set(['trials', 'passed', '95% CI', 'errors']);

export function runsTable(rows: RunListRow[]): string {
  const cells = [COLUMNS.map(([h]) => h), ...rows.map((r) => COLUMNS.map(([, f]) => f(r)))];
  const widths = COLUMNS.map((_, i) => Math.max(...cells.map((c) => c[i].length)));
  return cells
    .map((c) =>
      c
        .map((v, i) => (NUMERIC.has(COLUMNS[i][0]) ? v.padStart(widths[i]) : v.padEnd(widths[i])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
    .concat('\n');
}

export function registerRuns(program: Command, io: Io): void {
  program
    .command('runs')
    .description(
      'list the stored runs, newest first: agent, models, dataset, sandbox, status, pass rate',
    )
    .option('--db <path>', 'results database', DEFAULT_DB)
    .option('--json', 'one JSON array on stdout')
    .addHelpText('after', EXAMPLES)
    .action((o) => {
      const store = Store.open(o.db, { reader: true });
      let rows: RunListRow[];
      try {
        rows = listRuns(store);
      } finally {
        store.close();
      }
      if (o.json) io.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
      else if (!rows.length) io.stderr.write(`nanobench: ${o.db}: no runs stored yet\n`);
      else io.stdout.write(runsTable(rows));
    });
}
