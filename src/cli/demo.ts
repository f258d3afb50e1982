// `nanobench demo`: the example dataset through the REAL Nanocoder binary, against the
// scripted model server (offline, no API key), both modes. Prints the report and writes it as HTML.
// Quick by default (a first run must finish in a couple of minutes on two cores); --full runs the
// sampling policy with every scripted model.
import { readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { applyAudit, auditSummary } from '../audit/policy.js';
import { DEFAULT_SCRIPTS_DIR } from '../provider/endpoints.js';
import { defaultReportInputs } from '../report/inputs.js';
import { renderMarkdown } from '../report/markdown.js';
import { providerMatrix } from '../report/matrix.js';
import { buildReport } from '../report/model.js';
import { runView } from '../report/trial-view.js';
import { resolveRunConfig } from '../run/config.js';
import { runSession } from '../run/session.js';
import { readRunConfig } from '../run/stored-config.js';
import { Store, type TrialRecord } from '../store/store.js';
import { RunPaths } from '../trial/paths.js';
import { PACKAGE_ROOT } from '../util/package-root.js';
import { sandboxHelp } from '../workspace/sandbox/types.js';
import { type Io, progressPrinter } from './progress.js';
import { infraOnly } from './run.js';

/** A path as one shell word: as is when it needs no quoting. */
const shellWord = (s: string) => (/^[\w./@:+-]+$/.test(s) ? s : JSON.stringify(s));

/** Fixed order: the reader meets the good model first. */
export const DEMO_MODELS = [
  'competent',
  'flaky',
  'hallucinator',
  'wrong-files',
  'wanderer',
  'context-hog',
];

/** The quick demo's models: one of each behaviour. */
export const QUICK_MODELS = ['competent', 'hallucinator', 'wanderer', 'context-hog'];

export interface DemoChoice {
  models: string[];
  /** Runs per task; undefined = the tier policy. */
  runs?: string;
  /** One line for stderr: what this demo runs and what it leaves out. */
  says: string;
}

/**
 * Quick: one run per task, four models that between them show every kind of outcome (pass,
 * hallucinated_api, zero_signal and insufficient_context_read, context_window_exceeded); without
 * `flaky` (with one run it is the competent run: its wrong fixes come on attempts 2 and 4) and
 * `wrong-files` (its labels are wanderer's; only wanderer's navigation runs are flagged
 * context_explosion). Full: the tier policy (5 runs on tiers
 * 3-4) and every model. --model and --runs override either.
 */
export function demoChoice(
  o: { full?: boolean; runs?: string; model?: string[] },
  available: string[],
): DemoChoice {
  const pick = (ms: string[]) => o.model ?? ms.filter((m) => available.includes(m));
  if (o.full)
    return {
      models: pick(DEMO_MODELS),
      runs: o.runs,
      says: 'full demo: the sampling policy (1 run per tier 1-2 task, 5 per tier 3-4 task)',
    };
  const runs = o.runs ?? '1';
  return {
    models: pick(QUICK_MODELS),
    runs,
    says: o.model
      ? `demo of ${o.model.join(', ')}: ${runs} run(s) per task`
      : 'quick demo: 1 run per task, 4 of the 6 scripted models (flaky shows only over repeated runs); ' +
        'the whole policy with every model: npm run demo -- --full',
  };
}

/**
 * The demo's one line on its sandbox when it is a real one. Without one, the sandbox selection has
 * already warned in one line (which, why, and what the agents can reach), so nothing is added.
 */
export function realSandboxLine(used: string | undefined, asked?: string): string | undefined {
  if (used !== 'bwrap' && used !== 'podman' && used !== 'docker') return undefined;
  const why = asked === 'auto' ? 'bubblewrap works here' : `--sandbox ${asked}`;
  const sees =
    used === 'bwrap'
      ? 'the toolchain read-only, their workspace, nothing of NanoBench'
      : "each task's image, their workspace, nothing of NanoBench";
  return `sandbox ${used} (${why}): agents see ${sees}, and no network but the scripted model server`;
}

/**
 * The demo's models are scripted, so every trial should be scored: an infrastructure error means
 * this machine lacks something the quick start needs, and the demo fails (CI sees it).
 */
export function demoFaults(trials: TrialRecord[]): string | undefined {
  const errors = trials.filter((t) => t.status === 'error');
  if (!errors.length) return undefined;
  const first = errors[0].error.split('\n')[0].slice(0, 300);
  return (
    infraOnly(trials) ??
    `${errors.length} of ${trials.length} trials were infrastructure errors, where every trial of the demo should be scored (its models are scripted); e.g. ${first}`
  );
}

/** How to open a file from this platform's shell. */
function opener(file: string): string {
  const q = JSON.stringify(file);
  if (process.platform === 'darwin') return `open ${q}`;
  if (process.platform === 'win32') return `start "" ${q}`;
  return `xdg-open ${q}`;
}

export function registerDemo(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('demo')
    .description(
      'run the example dataset through the real Nanocoder against scripted models (offline); prints the report and writes it as HTML',
    )
    .option('--full', 'the whole sampling policy (5 runs on tier 3-4 tasks) and every model')
    .option('--db <path>', 'results database', '.nanobench/demo.sqlite')
    .option('--mode <mode>', 'hinted | navigation | both', 'both')
    .option('--runs <n>', 'runs per task (default: 1; with --full, by tier)')
    .option('--concurrency <k>', 'trials run at once', '2')
    .option(
      '--agent <agents>',
      "nanocoder, or nanocoder,bare: the bare agent (the model alone) beside it, paired, and the report's harness delta",
      'nanocoder',
    )
    .option(
      '--model <names...>',
      `scripted models (default: ${QUICK_MODELS.join(', ')}; with --full: ${DEMO_MODELS.join(', ')})`,
    )
    .option(
      '--sandbox <mode>',
      sandboxHelp(
        'bwrap when it works here, else, since the models are scripted, none-as-nobody as root, else none',
      ),
      'auto',
    )
    .option('--image <ref>', 'podman/docker: the image the example tasks run in')
    .option('--json', 'print the run and the matrix as JSON')
    .addHelpText(
      'after',
      `
Examples:
  npm run demo                                    # the quick demo (40 trials)
  nanobench demo --model competent --mode hinted  # 5 trials
  nanobench demo --sandbox none                   # as on a machine without bubblewrap
  nanobench demo --agent nanocoder,bare --model competent  # what Nanocoder adds to the model

Exit: 0 every trial scored, 1 a trial was an infrastructure error (the models are scripted:
the machine lacks something), 2 bad input or no usable sandbox, 130 interrupted.`,
    )
    .action((o: DemoOptions) => runDemo(o, io, setExit));
}

/** What the demo's options parse to (commander). */
interface DemoOptions {
  full?: boolean;
  db: string;
  mode: string;
  runs?: string;
  concurrency: string;
  agent: string;
  model?: string[];
  sandbox: string;
  image?: string;
  json?: boolean;
}

async function runDemo(o: DemoOptions, io: Io, setExit: (code: number) => void): Promise<void> {
  const available = readdirSync(DEFAULT_SCRIPTS_DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => f.replace(/\.json$/, ''));
  const choice = demoChoice(o, available);
  const config = resolveRunConfig([join(PACKAGE_ROOT, 'examples')], {
    agent: o.agent,
    provider: 'scripted',
    model: choice.models,
    mode: o.mode,
    runs: choice.runs,
    concurrency: o.concurrency,
    sandbox: o.sandbox,
    image: o.image,
  });
  io.stderr.write(
    'nanobench demo: the real Nanocoder binary against the SCRIPTED model server (a deterministic stand-in, not a model)\n' +
      `nanobench demo: ${choice.says}\n`,
  );
  const html = resolve(`${o.db.replace(/\.sqlite$/, '')}-report.html`);
  const store = Store.open(o.db);
  try {
    const progress = progressPrinter(io);
    const result = await runSession(config, store, new RunPaths(o.db), {
      onPlan: (run, pending) => {
        const line = realSandboxLine(readRunConfig(run).sandbox_used, config.sandbox);
        if (line) io.stderr.write(`nanobench demo: ${line}\n`);
        progress.plan(pending, run.plan_size, run.id);
      },
      onStart: (s) => progress.start(s),
      onProgress: (e) => progress.progress(e),
      // Warnings (no sandbox, leftovers) reach the user here as they do in run.
      log: (line) => io.stderr.write(`nanobench: ${line}\n`),
      // The models are scripted: without bwrap the demo still runs, with what is left.
      scriptedFallback: true,
    });
    progress.end();
    // One report, two renderings: the terminal gets markdown, the file HTML. Labels follow the
    // database's Level-4 audit, as every report's do.
    const audit = auditSummary(store.latestAudit());
    const report = buildReport(
      result.run,
      result.trials,
      defaultReportInputs(result.run, undefined, audit),
    );
    // echarts is loaded only for HTML.
    const { renderHtml } = await import('../report/html.js');
    writeFileSync(html, renderHtml(report));
    if (o.json)
      io.stdout.write(
        `${JSON.stringify({ ...runView(result.run, applyAudit(result.trials, audit?.agreement)), matrix: providerMatrix(applyAudit(result.trials, audit?.agreement)), html_report: html }, null, 2)}\n`,
      );
    else
      io.stdout.write(
        `${renderMarkdown(report)}\nHTML report (charts, every table): ${html}\nOpen it: ${opener(html)}\nEvery trial (transcript, diff, tests, label): nanobench view --db ${shellWord(o.db)}\n`,
      );
    const failed = demoFaults(result.trials);
    if (failed) {
      io.stderr.write(`nanobench: ${failed}\n`);
      setExit(1);
    }
    if (result.interrupted) setExit(130);
  } finally {
    store.close();
  }
}
