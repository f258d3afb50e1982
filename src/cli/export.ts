// `nanobench export --format harbor DATASET OUT`: the dataset's PR tasks as Harbor task
// directories (src/harbor/export.ts). Prints each task directory it wrote on stdout.
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { exportHarborTask } from '../harbor/export.js';
import { harborTaskDirs } from '../task/harbor.js';
import { loadDataset } from '../task/load.js';
import { resolveDatasetArg } from '../task/registry.js';
import { UserError } from '../util/errors.js';
import { resolveTasks, sourceCloneFor } from '../workspace/resolve-tasks.js';
import type { Io } from './progress.js';
import { cacheDirOf, DB_FOR_CACHE } from './run.js';

/** OUT as a directory to write into: a new one, an empty one, or (with --force) any. */
function outputDir(out: string, force: boolean): string {
  const dest = resolve(out);
  // The nearest existing path: a file there (or above) can hold no directory.
  let p = dest;
  while (!existsSync(p) && dirname(p) !== p) p = dirname(p);
  if (!statSync(p).isDirectory())
    throw new UserError(
      'BAD_OUTPUT',
      `${p} is a file; export writes a directory of tasks: name a directory (new or empty) as OUT`,
    );
  if (p === dest && readdirSync(dest).length && !force)
    throw new UserError('EXISTS', `${dest} is not empty (add --force to write into it)`);
  return dest;
}

export function registerExport(program: Command, io: Io): void {
  program
    .command('export')
    .description("write a dataset's tasks in another format: harbor (a directory per task)")
    .argument('<dataset>', 'a dataset directory or task file (or a shipped dataset by name)')
    .argument('<out>', 'directory to write the tasks into')
    .requiredOption('--format <format>', 'harbor')
    .option('--base-image <ref>', 'base of tasks that declare no environment (it needs node)')
    .option('--task <ids...>', 'only these task ids')
    .option('--mirror <dir>', 'local mirror: DIR/<owner>/<name>.git before any remote URL')
    .option(...DB_FOR_CACHE)
    .option('--cache-dir <dir>', 'cache of source clones (shared with run)')
    .option('--force', 'write into a directory that is not empty')
    .action(async (dataset: string, out: string, o) => {
      if (o.format !== 'harbor')
        throw new UserError('BAD_OPTION', `--format must be harbor, got "${o.format}"`);
      const src = resolveDatasetArg(dataset);
      if (harborTaskDirs(src))
        throw new UserError(
          'BAD_OPTION',
          `${src} holds Harbor tasks already; export takes PR tasks (schema v1)`,
        );
      const dest = outputDir(out, Boolean(o.force));
      const ids: string[] | undefined = o.task?.flatMap((t: string) => t.split(','));
      const loaded = loadDataset(src).filter(
        (t) => t.task.status.state === 'active' && (!ids || ids.includes(t.task.task_id)),
      );
      const unknown = ids?.filter((id) => !loaded.some((t) => t.task.task_id === id)) ?? [];
      if (unknown.length)
        throw new UserError(
          'UNKNOWN_TASK',
          `--task: no active task named ${unknown.join(', ')} in ${src}`,
        );
      const opts = {
        cacheDir: cacheDirOf(o),
        mirrorDir: o.mirror ? resolve(o.mirror) : undefined,
        log: (line: string) => io.stderr.write(`nanobench: ${line}\n`),
      };
      const tasks = await resolveTasks(loaded, opts);
      try {
        mkdirSync(dest, { recursive: true });
      } catch (e) {
        throw new UserError(
          'BAD_OUTPUT',
          `${dest}: cannot create the output directory (${(e as Error).message})`,
        );
      }
      for (const lt of tasks) {
        const dir = await exportHarborTask(lt, dest, {
          baseImage: o.baseImage,
          cloneOf: (t) => sourceCloneFor(t, opts),
        });
        io.stderr.write(`nanobench: exported ${lt.task.task_id}\n`);
        io.stdout.write(`${dir}\n`);
      }
      io.stderr.write(
        `nanobench: ${tasks.length} Harbor task(s) in ${dest}; check them: nanobench task check ${dest}\n`,
      );
    });
}
