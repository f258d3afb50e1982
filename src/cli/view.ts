// `nanobench view`: a local web viewer over a results store, read-only. Prints its URL on stdout
// and serves until SIGINT/SIGTERM (then exits 0: stopping the viewer is how it ends).
import type { Command } from 'commander';
import { loadCutoffs } from '../config/cutoffs.js';
import { intOption } from '../run/config.js';
import type { Io } from './progress.js';
import { DEFAULT_DB } from './run.js';

export const DEFAULT_VIEW_PORT = 7357;

export function registerView(program: Command, io: Io): void {
  program
    .command('view')
    .description(
      'a local web viewer over the results store (read-only): runs, the matrix, every trial (prompt, transcript, diff, tests, label, telemetry), compare two runs, follow a run live',
    )
    .option(
      '--db <paths...>',
      'results database(s); with several, runs of all are listed and compared (DB:RUNID)',
      [DEFAULT_DB],
    )
    .option('--host <address>', 'address to listen on', '127.0.0.1')
    .option('--port <n>', 'port to listen on (0: any free port)', String(DEFAULT_VIEW_PORT))
    .option(
      '--allow-remote',
      'listen on a non-loopback --host: the viewer has no authentication, anyone who reaches it reads every trial',
    )
    .option(
      '--cutoffs <file>',
      'per-model knowledge cutoffs (default: examples/model-cutoffs.json)',
    )
    .action(async (o) => {
      const port = intOption(o.port, '--port', 0, 65535);
      if (o.cutoffs) loadCutoffs(o.cutoffs); // a bad file is one line now, not a failed page later
      // The server (and hono) is loaded only for this command.
      const { startViewer } = await import('../view/server.js');
      const viewer = await startViewer({
        db: o.db,
        host: o.host,
        port,
        allowRemote: Boolean(o.allowRemote),
        cutoffs: o.cutoffs,
        log: (line) => io.stderr.write(`nanobench view: ${line}\n`),
      });
      io.stdout.write(`${viewer.url}\n`);
      io.stderr.write(
        `nanobench view: ${o.db.join(', ')}, read-only, at ${viewer.url} (Ctrl-C stops it)\n`,
      );
      await new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await viewer.close();
    });
}
