// `nanobench calibration DATASET`: from stored runs, the solve rate of each task per
// configuration (model or Nanocoder build) with Wilson intervals, whether each calibrating task
// may be activated, and which tasks are saturated. --check exits 1 when something stands in the
// way of a release (an active task saturated without a recorded reason, or changed since it was
// activated).
import { relative } from 'node:path';
import type { Command } from 'commander';
import { calibrationReport, readStoredRuns } from '../calibration/calibration.js';
import { calibrationText } from '../calibration/render.js';
import { loadDataset } from '../task/load.js';
import { loadManifest } from '../task/manifest.js';
import { resolveDatasetArg } from '../task/registry.js';
import { UserError } from '../util/errors.js';
import type { Io } from './progress.js';
import { DEFAULT_DB } from './run.js';

/** --mode for calibration: one mode at a time (the prompt differs, so do the rates). */
export function calibrationMode(mode: string): string {
  if (mode !== 'hinted' && mode !== 'navigation')
    throw new UserError('BAD_OPTION', `--mode must be hinted or navigation, got "${mode}"`);
  return mode;
}

export function registerCalibration(
  program: Command,
  io: Io,
  setExit: (code: number) => void,
): void {
  program
    .command('calibration')
    .description(
      'per task and configuration (model or Nanocoder build), the solve rate with its 95% Wilson interval in stored runs; which calibrating tasks may be activated, which are saturated',
    )
    .argument('<dataset>', 'dataset directory or shipped dataset name')
    .option('--db <paths...>', 'results databases to read the runs from', [DEFAULT_DB])
    .option(
      '--mode <mode>',
      'hinted | navigation: the mode whose trials are observations',
      'hinted',
    )
    .option('--task <ids...>', 'only these task ids')
    .option(
      '--check',
      'exit 1 when an active task is saturated without a recorded reason or changed since its activation',
    )
    .option('--json', 'one JSON document on stdout')
    .action((arg: string, o) => {
      const dir = resolveDatasetArg(arg);
      const mode = calibrationMode(o.mode);
      let tasks = loadDataset(dir);
      const ids: string[] | undefined = o.task?.flatMap((t: string) => t.split(','));
      if (ids?.length) {
        const unknown = ids.filter((id) => !tasks.some((t) => t.task.task_id === id));
        if (unknown.length)
          throw new UserError(
            'UNKNOWN_TASK',
            `--task: no task named ${unknown.join(', ')} in ${dir}`,
          );
        tasks = tasks.filter((t) => ids.includes(t.task.task_id));
      }
      const dbs: string[] = o.db;
      const shown = relative(process.cwd(), dir) || '.';
      const report = calibrationReport(tasks, readStoredRuns(dbs), { mode, dataset: shown, dbs });
      if (o.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      else {
        const m = loadManifest(dir);
        io.stdout.write(calibrationText(report, m ? `${m.name} ${m.version} (${shown})` : shown));
      }
      if (o.check && report.problems.length) {
        for (const p of report.problems) io.stderr.write(`nanobench: ${p}\n`);
        setExit(1);
      }
    });
}
