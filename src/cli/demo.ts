// `nanobench demo`: the example dataset through the REAL Nanocoder binary, against the
// scripted model server (offline, no API key), every scripted model, both modes. Prints the
// provider matrix.
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { applyAudit } from '../audit/policy.js';
import { DEFAULT_SCRIPTS_DIR } from '../provider/endpoints.js';
import { markdownSummary } from '../report/markdown.js';
import { providerMatrix } from '../report/matrix.js';
import { runView } from '../report/trial-view.js';
import { resolveRunConfig } from '../run/config.js';
import { RunPaths } from '../run/paths.js';
import { runSession } from '../run/session.js';
import { Store } from '../store/store.js';
import { PACKAGE_ROOT } from '../util/package-root.js';
import { type Io, progressPrinter } from './progress.js';
import { infraOnly } from './run.js';

/** Fixed order: the reader meets the good model first. */
const DEMO_MODELS = [
  'competent',
  'flaky',
  'hallucinator',
  'wrong-files',
  'wanderer',
  'context-hog',
];

export function registerDemo(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('demo')
    .description(
      'run the example dataset through the real Nanocoder against scripted models (offline) and print the provider matrix',
    )
    .option('--db <path>', 'results database', '.nanobench/demo.sqlite')
    .option('--mode <mode>', 'hinted | navigation | both', 'both')
    .option('--runs <n>', 'runs per task (default: by tier, 1 for tiers 1-2, 5 for tiers 3-4)')
    .option('--concurrency <k>', 'trials run at once', '2')
    .option('--model <names...>', `scripted models (default: ${DEMO_MODELS.join(', ')})`)
    .option('--json', 'print the run and the matrix as JSON')
    .action(async (o) => {
      const available = readdirSync(DEFAULT_SCRIPTS_DIR)
        .filter((f) => f.endsWith('.json'))
        .map((f) => f.replace(/\.json$/, ''));
      const models: string[] = o.model ?? DEMO_MODELS.filter((m) => available.includes(m));
      const config = resolveRunConfig([join(PACKAGE_ROOT, 'examples')], {
        agent: 'nanocoder',
        provider: 'scripted',
        model: models,
        mode: o.mode,
        runs: o.runs,
        concurrency: o.concurrency,
      });
      io.stderr.write(
        'nanobench demo: the real Nanocoder binary against the SCRIPTED model server (a deterministic stand-in, not a model)\n',
      );
      const store = Store.open(o.db);
      try {
        const progress = progressPrinter(io);
        const result = await runSession(config, store, new RunPaths(o.db), {
          onPlan: (run, pending) => progress.plan(pending, run.plan_size, run.id),
          onStart: (s) => progress.start(s),
          onProgress: (e) => progress.progress(e),
          // Warnings (no sandbox, leftovers) reach the user here as they do in run.
          log: (line) => io.stderr.write(`nanobench: ${line}\n`),
        });
        progress.end();
        const audit = store.latestAudit();
        const shown = applyAudit(result.trials, audit?.agreement);
        const cells = providerMatrix(shown);
        if (o.json)
          io.stdout.write(
            `${JSON.stringify({ ...runView(result.run, shown), matrix: cells }, null, 2)}\n`,
          );
        else io.stdout.write(markdownSummary(result.run, result.trials, audit));
        const failed = infraOnly(result.trials);
        if (failed) {
          io.stderr.write(`nanobench: ${failed}\n`);
          setExit(1);
        }
        if (result.interrupted) setExit(130);
      } finally {
        store.close();
      }
    });
}
