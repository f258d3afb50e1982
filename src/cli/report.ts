// `nanobench report`: summarise a stored run.
import type { Command } from 'commander';
import { markdownSummary } from '../report/markdown.js';
import { runView } from '../report/trial-view.js';
import { Store } from '../store/store.js';
import { UserError } from '../util/errors.js';
import type { Io } from './progress.js';
import { DEFAULT_DB } from './run.js';

export function registerReport(program: Command, io: Io): void {
  program
    .command('report')
    .description('print a summary of a stored run (default: the latest)')
    .argument('[runId]', 'run id')
    .option('--db <path>', 'results database', DEFAULT_DB)
    .option('--json', 'JSON instead of markdown')
    .action((runId: string | undefined, o) => {
      const store = Store.open(o.db);
      try {
        const run = runId ? store.getRun(runId) : store.latestRun();
        if (!run)
          throw new UserError(
            'NO_RUN',
            runId ? `${o.db}: no run "${runId}"` : `${o.db}: no runs stored yet`,
          );
        const trials = store.trials(run.id);
        io.stdout.write(
          o.json
            ? `${JSON.stringify(runView(run, trials), null, 2)}\n`
            : markdownSummary(run, trials),
        );
      } finally {
        store.close();
      }
    });
}
