// `nanobench worker`: take trials from a queue (see `run --queue`) until stopped.
// SIGINT/SIGTERM: finish the trials in flight, take no more. A second signal: abort them (they
// go back to the queue for another worker). `--cleanup`: end what dead workers left in the work
// directory (every worker does that when it starts) and exit.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { intOption, MAX_CONCURRENCY, parseQueueUrl } from '../run/config.js';
import { UserError } from '../util/errors.js';
import type { Io } from './progress.js';

/** A job lock past this would not fit a timer (Node caps them at 2^31-1 ms and fires at once). */
const MAX_LOCK_MS = 24 * 3600 * 1000;

export function registerWorker(program: Command, io: Io): void {
  program
    .command('worker')
    .description('run trials from a queue filled by "nanobench run --queue" (until stopped)')
    .option('--queue <url>', 'Redis URL, e.g. redis://10.0.0.5:6379 (required but with --cleanup)')
    .option('--concurrency <k>', 'trials run at once', '1')
    .option('--work-dir <dir>', 'caches and trial directories', '.nanobench/worker')
    .option('--mirror <dir>', 'local mirror of task repositories (overrides the run config)')
    .option(
      '--lock-ms <ms>',
      "a dead worker's trial is retried elsewhere after this long (keep it above any blocking step)",
      '30000',
    )
    .option(
      '--cleanup',
      'end what dead workers left in --work-dir (processes, overlay mounts, worker-<pid>/ directories) and exit',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  nanobench worker --queue redis://10.0.0.5:6379 --concurrency 2\n  nanobench worker --cleanup --work-dir .nanobench/worker',
    )
    .action(async (o) => {
      if (o.cleanup) return cleanup(o.workDir, io);
      if (o.queue === undefined)
        throw new UserError(
          'BAD_OPTION',
          `required option '--queue <url>' not specified (or pass --cleanup); see "nanobench worker --help"`,
        );
      const url = parseQueueUrl(o.queue);
      const concurrency = intOption(o.concurrency, '--concurrency', 1, MAX_CONCURRENCY);
      // Locks are renewed every lockMs/2: below a second that is all the worker would do.
      const lockMs = intOption(o.lockMs, '--lock-ms', 1000, MAX_LOCK_MS);
      // Asked before bullmq is even loaded: a wrong or silent URL is one line, at once.
      await (await import('../queue/probe.js')).probeRedis(url);
      // bullmq is loaded only by the commands that use a queue.
      const { startWorker } = await import('../queue/worker.js');
      const log = (line: string) => io.stderr.write(`nanobench worker: ${line}\n`);
      const worker = await startWorker({
        url,
        concurrency,
        workDir: o.workDir,
        mirror: o.mirror,
        lockMs,
        log,
      });
      await new Promise<void>((resolve) => {
        let closing: Promise<void> | undefined;
        const onSignal = () => {
          const force = closing !== undefined;
          log(force ? 'stopping now' : 'finishing the trials in flight (signal again to abort)');
          closing = worker.close(force);
          closing.then(() => {
            process.off('SIGINT', onSignal);
            process.off('SIGTERM', onSignal);
            resolve();
          });
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
      });
      log('stopped');
    });
}

/** `worker --cleanup`: what dead workers left, ended; live workers' directories untouched. */
async function cleanup(workDir: string, io: Io): Promise<void> {
  const { describeSwept, sweepDeadWorkers } = await import('../queue/worker-dirs.js');
  const dir = resolve(workDir);
  const said = describeSwept(await sweepDeadWorkers(dir), dir);
  io.stdout.write(`${said ?? `nothing left by dead workers in ${dir}`}\n`);
}
