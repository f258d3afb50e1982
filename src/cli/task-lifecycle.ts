// `nanobench task retire|activate|keep-saturated|recalibrate|dispute`: a task's life in its dataset.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { activate, keepActiveSaturated } from '../calibration/activation.js';
import { calibrate, observationsOf, readStoredRuns } from '../calibration/calibration.js';
import { intOption } from '../run/config.js';
import {
  findTaskFile,
  listDisputes,
  openDispute,
  recalibrateTask,
  resolveDispute,
  retireTask,
} from '../task/governance.js';
import { loadTaskFile } from '../task/load.js';
import { UserError } from '../util/errors.js';
import { calibrationMode } from './calibration.js';
import type { Io } from './progress.js';
import { DEFAULT_DB } from './run.js';

const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The task's calibration from the stored runs named by --db. */
function calibrationOf(taskId: string, o: { dataset: string; db: string[]; mode: string }) {
  const file = findTaskFile(o.dataset, taskId);
  const lt = loadTaskFile(file, resolve(o.dataset));
  const obs = observationsOf(readStoredRuns(o.db), [lt], calibrationMode(o.mode));
  return { file, lt, cal: calibrate(lt, obs, { dataset: o.dataset, dbs: o.db }) };
}

export function registerLifecycle(task: Command, io: Io): void {
  task
    .command('retire')
    .description('mark a task retired (the file stays); it drops out of the next manifest and runs')
    .argument('<taskId>', 'the task id')
    .requiredOption(
      '--reason <text>',
      'why (flaky after onboarding, history rewritten, contaminated...)',
    )
    .option('--version <v>', 'the dataset version it is absent from')
    .option('--dataset <dir>', 'dataset directory', '.')
    .action((taskId: string, o) => {
      const file = findTaskFile(o.dataset, taskId);
      retireTask(file, o.reason, o.version);
      io.stderr.write(
        `nanobench: retired ${taskId} (${file} kept); publish with: nanobench dataset manifest ${o.dataset}${o.version ? ` --version ${o.version}` : ' --version <next>'}\n`,
      );
    });

  task
    .command('activate')
    .description(
      'a calibrated task becomes active: 3 configurations (models or Nanocoder builds) with 3 valid observations each in the stored runs, no open dispute, and your approval rationale',
    )
    .argument('<taskId>', 'the task id')
    .requiredOption(
      '--reason <text>',
      'the approval rationale (alternatives and disputes reviewed)',
    )
    .option(
      '--keep-saturated <text>',
      'why it should be active although saturated (pooled solve rate >= 0.9)',
    )
    .option('--db <paths...>', 'results databases holding the calibration runs', [DEFAULT_DB])
    .option('--mode <mode>', 'hinted | navigation: the mode whose trials count', 'hinted')
    .option('--dataset <dir>', 'dataset directory', '.')
    .action((taskId: string, o) => {
      const { file, lt, cal } = calibrationOf(taskId, o);
      const done = activate({
        file,
        lt,
        cal,
        reason: o.reason,
        keepSaturated: o.keepSaturated,
        where: { dataset: o.dataset, dbs: o.db, mode: o.mode },
        at: now(),
      });
      io.stderr.write(
        `nanobench: ${done}; publish with: nanobench dataset release ${o.dataset} --version <next>\n`,
      );
    });

  task
    .command('keep-saturated')
    .description(
      'record why an active task stays active although saturated (pooled solve rate >= 0.9)',
    )
    .argument('<taskId>', 'the task id')
    .requiredOption('--reason <text>', 'why it still belongs in the benchmark')
    .option('--db <paths...>', 'results databases holding the runs', [DEFAULT_DB])
    .option('--mode <mode>', 'hinted | navigation: the mode whose trials count', 'hinted')
    .option('--dataset <dir>', 'dataset directory', '.')
    .action((taskId: string, o) => {
      const { file, cal } = calibrationOf(taskId, o);
      io.stderr.write(`nanobench: ${keepActiveSaturated(file, taskId, cal, o.reason, now())}\n`);
    });

  task
    .command('recalibrate')
    .description(
      'return a task to calibrating (its content changed since activation, or a retired task comes back)',
    )
    .argument('<taskId>', 'the task id')
    .option('--dataset <dir>', 'dataset directory', '.')
    .action((taskId: string, o) => {
      const file = findTaskFile(o.dataset, taskId);
      recalibrateTask(file);
      io.stderr.write(
        `nanobench: ${taskId} is calibrating again; its observations on the current content count (nanobench calibration ${o.dataset})\n`,
      );
    });
  registerDispute(task, io);
}

/** `task dispute`: list, open or resolve a dispute in the task file. */
function registerDispute(task: Command, io: Io): void {
  task
    .command('dispute')
    .description("list a task's disputes, or record one, or its resolution, in the task file")
    .argument('<taskId>', 'the task id')
    .option('--claim <text>', 'open a dispute: what is claimed to be wrong')
    .option('--by <who>', 'who raised it (e.g. a GitHub handle or issue URL)')
    .option('--resolve <n>', 'resolve dispute number n (1-based)')
    .option('--resolution <text>', "the maintainer's ruling, with --resolve")
    .option('--dataset <dir>', 'dataset directory', '.')
    .option('--json', 'print the disputes as JSON')
    .action((taskId: string, o) => {
      const file = findTaskFile(o.dataset, taskId);
      let disputes: { claim: string; resolution?: string }[];
      if (o.claim !== undefined) {
        if (!o.by) throw new UserError('BAD_OPTION', '--claim needs --by <who>');
        disputes = openDispute(file, o.by, o.claim);
      } else if (o.resolve !== undefined) {
        const n = intOption(o.resolve, '--resolve');
        if (!o.resolution) throw new UserError('BAD_OPTION', '--resolve needs --resolution <text>');
        disputes = resolveDispute(file, n, o.resolution);
      } else if (o.by !== undefined || o.resolution !== undefined)
        throw new UserError(
          'BAD_OPTION',
          `${o.by !== undefined ? '--by goes with --claim' : '--resolution goes with --resolve'}: give --claim (with --by) or --resolve (with --resolution), or neither to list the disputes`,
        );
      else disputes = listDisputes(file); // neither: the list, as it stands
      if (o.json) io.stdout.write(`${JSON.stringify(disputes, null, 2)}\n`);
      else if (!disputes.length) io.stderr.write(`nanobench: ${taskId} has no dispute\n`);
      else
        for (const [i, d] of disputes.entries())
          io.stdout.write(`#${i + 1} ${d.resolution ? 'resolved' : 'open'}: ${d.claim}\n`);
    });
}
