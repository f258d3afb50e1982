// `nanobench selftest`: every derived behaviour (src/derived/) on the selected tasks, through the
// real Nanocoder and the real proxy, each trial held against what the rules say it must get.
// Exits 1 on any mismatch.
import type { Command } from 'commander';
import { BEHAVIOURS, WANDER_FILES } from '../derived/behaviours.js';
import { newSelftestEvidence, writeSelftestEvidence } from '../derived/evidence.js';
import {
  parseBehaviours,
  renderSelftest,
  runSelftest,
  type SelftestResult,
  selftestJson,
} from '../derived/selftest.js';
import { RUN_DEFAULTS } from '../run/config.js';
import { Store } from '../store/store.js';
import { UserError } from '../util/errors.js';
import { sandboxHelp } from '../workspace/sandbox/types.js';
import { type Io, progressPrinter } from './progress.js';
import { DEFAULT_DB } from './run.js';

const EXAMPLE = `
Example (offline, on an example task):
  nanobench selftest examples --mirror examples/mirror --task textkit-001 --behaviour golden,nothing

Each behaviour is a scripted model derived from the task when the run starts (never written
where the agent could read it): golden (the golden patch through Nanocoder's own file tools),
nothing, wanderer (reads ${WANDER_FILES} files outside required_files), hallucinated (golden plus a call of a
function that exists nowhere), interface (golden plus a call against a built-in's interface),
overflow (the provider's context-length error). The expected label, score and flags per mode
follow from the scoring rules (src/derived/expectations.ts). A behaviour that cannot be built
for a task is reported as "not built", with why. The trials are an ordinary run in --db.
`;

export function registerSelftest(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('selftest')
    .description("run Nanocoder with behaviours derived from each task and check the rules' labels")
    .argument('<dataset...>', 'dataset directories (with tasks/*.json) or task files')
    .option('--task <ids...>', 'only these task ids')
    .option('--behaviour <names...>', `only these behaviours: ${BEHAVIOURS.join(', ')}`)
    .option('--mode <mode>', 'hinted | navigation | both', 'both')
    .option('--mirror <dir>', 'local mirror: DIR/<owner>/<name>.git is used before any remote URL')
    .option('--db <path>', 'results database (artifacts and caches live next to it)', DEFAULT_DB)
    .option('--cache-dir <dir>', 'where prepared environments are cached (default: next to the db)')
    .option('--concurrency <k>', 'trials run at once', RUN_DEFAULTS.concurrency)
    .option('--sandbox <mode>', `${sandboxHelp()} (as for run)`, 'auto')
    .option('--provision <mode>', 'how trial workspaces are made (as for run)', 'auto')
    .option('--nanocoder <path>', 'Nanocoder build: a checkout directory or its dist/cli.js')
    .option(
      '--node <path>',
      'Node >= 22.19 binary to run Nanocoder with (default: NANOBENCH_NODE, else the pinned runtime/, else node on PATH)',
    )
    .option('--keep-workspaces', 'keep each trial workspace after the trial')
    .option(
      '--record-evidence',
      "keep each task's result in <dataset>/selftest/<task_id>.json, tied to its digest and the Nanocoder version (every behaviour, both modes)",
    )
    .option('--json', 'one JSON document on stdout: the cases, each with expected, got and match')
    .addHelpText('after', EXAMPLE)
    .action(async (datasets: string[], o) => {
      if (datasets.length === 0) throw new UserError('NO_DATASET', 'name a dataset or task file');
      const behaviours = parseBehaviours(o.behaviour);
      if (o.recordEvidence && (o.behaviour || o.mode !== 'both'))
        throw new UserError(
          'BAD_OPTION',
          '--record-evidence needs every behaviour in both modes; drop --behaviour and --mode',
        );
      const store = Store.open(o.db);
      const progress = progressPrinter(io);
      try {
        const result = await runSelftest(
          {
            datasets,
            taskIds: o.task,
            behaviours,
            mode: o.mode,
            db: o.db,
            cacheDir: o.cacheDir,
            mirror: o.mirror,
            concurrency: o.concurrency,
            sandbox: o.sandbox,
            provision: o.provision,
            nanocoder: o.nanocoder,
            node: o.node,
            keepWorkspaces: Boolean(o.keepWorkspaces),
          },
          store,
          {
            onPlan: (run, pending) => progress.plan(pending, run.plan_size, run.id),
            onStart: (s) => progress.start(s),
            onProgress: (e) => progress.progress(e),
            log: (line) => io.stderr.write(`nanobench: ${line}\n`),
          },
        );
        progress.end();
        if (o.recordEvidence) recordEvidence(result, io);
        if (o.json) io.stdout.write(`${JSON.stringify(selftestJson(result), null, 2)}\n`);
        else io.stdout.write(renderSelftest(result));
        if (result.cases.some((c) => c.match === false)) setExit(1);
        if (result.interrupted) {
          io.stderr.write('nanobench: interrupted; the cases without a trial are left out\n');
          setExit(130);
        }
      } finally {
        store.close();
      }
    });
}

/** Each task's selftest kept with its dataset; a task whose cases did not all run is said so. */
function recordEvidence(result: SelftestResult, io: Io): void {
  const { run_id, nanocoder_version } = result;
  for (const { loaded } of result.tasks) {
    const id = loaded.task.task_id;
    const e =
      run_id && nanocoder_version
        ? newSelftestEvidence(loaded, result.cases, { run_id, nanocoder_version })
        : 'no trial ran (or the Nanocoder version is unknown)';
    if (typeof e === 'string') {
      io.stderr.write(`nanobench: ${id}: no selftest evidence written: ${e}\n`);
      continue;
    }
    const file = writeSelftestEvidence(loaded.datasetDir, e);
    io.stderr.write(`nanobench: ${id}: selftest evidence written to ${file}\n`);
  }
}
