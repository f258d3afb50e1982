// `nanobench leaderboard`: which model does best through Nanocoder, over the stored runs of one
// dataset version, ranked only as far as the data separate the rows.
import type { Command } from 'commander';
import { loadLeaderboard } from '../report/leaderboard-input.js';
import { leaderboardMarkdown } from '../report/leaderboard-markdown.js';
import { UserError } from '../util/errors.js';
import { writeUserFile } from '../util/write.js';
import type { Io } from './progress.js';
import { DEFAULT_DB } from './run.js';

const HELP = `
One row per (provider, model, Nanocoder version) over every stored run of the dataset version
(trials of one row from several runs are pooled per task). Ordered by pass@1 counted per task
(each task once), with its 95% interval over tasks. Each row is compared with every row above it
on the tasks both ran: the paired sign-flip test, Holm-corrected over the pairs (fewer than 6
shared tasks: the overlap of their 95% intervals decides). A row's rank is one more than the rows
above it that are better beyond noise, so rows the data cannot separate share a rank ("=2").
Infra errors are beside the rates; tokens and cost per trial and per solved task (all the row's
usage divided by its passing trials); the most frequent failure labels; tasks measured of the
dataset's tasks.

Examples:
  nanobench leaderboard
  nanobench leaderboard --db main.sqlite nightly.sqlite --dataset nanobench-v1@1.0.0 --format html --out board.html
  nanobench leaderboard --mode navigation --json`;

const FORMATS = ['md', 'html', 'json'] as const;

export function registerLeaderboard(program: Command, io: Io): void {
  program
    .command('leaderboard')
    .description(
      'rank (provider, model, Nanocoder version) over the stored runs of one dataset version; ties where the data cannot separate',
    )
    .option('--db <files...>', 'results databases (one or more)', [DEFAULT_DB])
    .option('--dataset <name@version>', "the dataset version (default: the newest run's)")
    .option('--mode <mode>', 'hinted | navigation (never pooled)', 'hinted')
    .option('--format <format>', 'md | html (one self-contained file) | json', 'md')
    .option('--json', 'same as --format json')
    .option('--out <file>', 'write it to FILE instead of stdout')
    .addHelpText('after', HELP)
    .action(async (o) => {
      const format = o.json ? 'json' : o.format;
      if (!(FORMATS as readonly string[]).includes(format))
        throw new UserError('BAD_OPTION', `--format must be md, html or json, got "${format}"`);
      const { board, notes } = loadLeaderboard({ dbs: o.db, dataset: o.dataset, mode: o.mode });
      for (const n of notes) io.stderr.write(`nanobench: ${n}\n`);
      let text: string;
      if (format === 'md') text = leaderboardMarkdown(board);
      else if (format === 'json') text = `${JSON.stringify(board, null, 2)}\n`;
      else {
        // hono/jsx renders the viewer's table; loaded only for HTML.
        const { leaderboardHtml } = await import('../view/pages/leaderboard.js');
        text = leaderboardHtml(board);
      }
      if (o.out) {
        writeUserFile(o.out, text, 'leaderboard');
        io.stderr.write(`nanobench: wrote ${o.out}\n`);
      } else io.stdout.write(text);
    });
}
