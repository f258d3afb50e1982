// `nanobench merge OUT DB...`: combine the runs of shard machines into one run in OUT.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { type MergeInput, mergeRuns } from '../store/merge.js';
import { Store } from '../store/store.js';
import { RunPaths } from '../trial/paths.js';
import { UserError } from '../util/errors.js';
import type { Io } from './progress.js';

/** The latest run of each input, or the runs named by --run (looked up in every input). */
function readInputs(dbs: string[], runIds: string[] | undefined): MergeInput[] {
  const inputs: MergeInput[] = [];
  for (const db of dbs) {
    const store = Store.open(db, { reader: true });
    try {
      const runs = runIds
        ? store.listRuns().filter((r) => runIds.includes(r.id))
        : [store.latestRun()].filter((r) => r !== undefined);
      if (!runIds && runs.length === 0) throw new UserError('NO_RUN', `${db}: no runs stored`);
      for (const run of runs) inputs.push({ source: db, run, trials: store.trials(run.id) });
    } finally {
      store.close();
    }
  }
  const missing = runIds?.filter((id) => !inputs.some((i) => i.run.id === id)) ?? [];
  if (missing.length)
    throw new UserError('NO_RUN', `--run: no run ${missing.join(', ')} in ${dbs.join(', ')}`);
  return inputs;
}

export function registerMerge(program: Command, io: Io): void {
  program
    .command('merge')
    .description('merge the runs of several stores (e.g. --shard machines) into one run')
    .argument('<out>', 'results database to write (created if missing)')
    .argument('<db...>', 'input databases (each contributes its latest run, unless --run)')
    .option('--run <ids...>', 'merge these runs (from any input) instead of the latest of each')
    .option('--force', 'merge even if plans, agent builds or shards do not match')
    .option('--no-copy-artifacts', 'keep artifact paths as they are instead of copying them')
    .option('--json', 'print the merged run as JSON')
    .action((out: string, dbs: string[], o) => {
      if (dbs.some((d) => resolve(d) === resolve(out)))
        throw new UserError('BAD_OPTION', `merge: ${out} is both the output and an input`);
      const inputs = readInputs(dbs, o.run);
      const store = Store.open(out);
      try {
        const result = mergeRuns(store, new RunPaths(out), inputs, {
          force: Boolean(o.force),
          copyArtifacts: o.copyArtifacts !== false,
        });
        for (const w of result.warnings) io.stderr.write(`nanobench: warning: ${w}\n`);
        io.stderr.write(
          result.already
            ? `nanobench: ${out} holds this merge already: run ${result.run.id} (${result.run.status}), ${result.trials} trials, from the same ${inputs.length} run(s); nothing written\n`
            : `nanobench: merged ${inputs.length} run(s), ${result.trials} trials, into run ${result.run.id} (${result.run.status}) in ${out}\n`,
        );
        io.stdout.write(
          o.json
            ? `${JSON.stringify({ run_id: result.run.id, status: result.run.status, plan_size: result.run.plan_size, trials: result.trials, warnings: result.warnings, ...(result.already && { already_merged: true }) }, null, 2)}\n`
            : `${result.run.id}\n`,
        );
      } finally {
        store.close();
      }
    });
}
