// `nanobench run`: plan, execute and store trials; print the results.

import type { Command } from 'commander';
import { agentUsage } from '../agent/agents.js';
import { applyAudit } from '../audit/policy.js';
import { markdownSummary } from '../report/markdown.js';
import { runView } from '../report/trial-view.js';
import { RUN_DEFAULTS, type RunConfig, type RunOptionsInput } from '../run/config.js';
import { resolveWithMatrix } from '../run/matrix.js';
import {
  checkResumeOptions,
  findRunToResume,
  parseErrorCauses,
  type ResumeOptions,
  resumeConfig,
} from '../run/resume.js';
import { runSession, type SessionHooks, type SessionResult } from '../run/session.js';
import { Store, type TrialRecord } from '../store/store.js';
import { RunPaths } from '../trial/paths.js';
import { reportStillRunning, stillEveryMs } from '../util/still-running.js';
import { sandboxHelp } from '../workspace/sandbox/types.js';
import { type Io, progressPrinter } from './progress.js';

export const DEFAULT_DB = '.nanobench/results.sqlite';

/**
 * The cache every command shares with `run` (source clones, environments): --cache-dir, else
 * next to the results database (--db, else the default one). One rule: `validate` once kept its
 * own under the current directory while `run --db` kept another next to its database.
 */
export const cacheDirOf = (o: { db?: string; cacheDir?: string }): string =>
  new RunPaths(o.db ?? DEFAULT_DB, o.cacheDir).cacheDir;

/** The --db option of the commands that only use the cache. */
export const DB_FOR_CACHE: [string, string] = [
  '--db <path>',
  'results database: the cache lives next to it, as for run (unless --cache-dir)',
];

export function registerRun(program: Command, io: Io, setExit: (code: number) => void): void {
  const run = program
    .command('run')
    .description('run an agent on a dataset and store every trial')
    .argument('[dataset...]', 'dataset directories (with tasks/*.json) or task files');
  addRunOptions(run).action((datasets: string[], o: RunFlags, cmd: Command) =>
    runCommand(datasets, o, cmd, io, setExit),
  );
}

/** What the action reads of the options (commander fills them from addRunOptions). */
interface RunFlags extends RunOptionsInput {
  matrix?: string;
  db: string;
  cacheDir?: string;
  json?: boolean;
  resume?: string | true;
  takeOver?: boolean;
  allowChangedTasks?: boolean;
  retryErrors?: string | true;
}

/** The options of `run`: what a run measures, where it runs, how it resumes, what it prints. */
function addRunOptions(cmd: Command): Command {
  return cmd
    .option(
      '--agent <agent>',
      `${agentUsage()}; several LLM agents comma-separated (nanocoder,bare) run paired on the same plan`,
      RUN_DEFAULTS.agent,
    )
    .option(
      '--provider <name>',
      'provider for LLM agents ("scripted" = the offline scripted model server)',
      RUN_DEFAULTS.provider,
    )
    .option('--model <names...>', 'model name(s) for LLM agents; repeat or comma-separate')
    .option(
      '--matrix <file>',
      'run matrix file: the (provider, model) pairs, optionally modes and runs (schemas/matrix.schema.json)',
    )
    .option('--mode <mode>', 'hinted | navigation | both', RUN_DEFAULTS.mode)
    .option('--runs <n>', 'runs per task (default: by tier, 1 for tiers 1-2, 5 for tiers 3-4)')
    .option(
      '--concurrency <k>',
      'trials run at once (auto: one per core, as memory allows)',
      RUN_DEFAULTS.concurrency,
    )
    .option('--task <ids...>', 'only these task ids')
    .option('--mirror <dir>', 'local mirror: DIR/<owner>/<name>.git is used before any remote URL')
    .option('--db <path>', 'results database (artifacts and caches live next to it)', DEFAULT_DB)
    .option('--cache-dir <dir>', 'where prepared environments are cached (default: next to the db)')
    .option('--keep-workspaces', 'keep each trial workspace after the trial')
    .option('--resume [runId]', 'finish an interrupted run (default: the latest unfinished one)')
    .option(
      '--take-over',
      'with --resume: take the run from the process holding it even if it may still be alive',
    )
    .option(
      '--allow-changed-tasks',
      'with --resume: grade the rest of the run on task files that changed since it started',
    )
    .option(
      '--retry-errors [causes]',
      'with --resume: run again the trials stored as infra errors of these causes (a stage or stage/code, comma-separated; default: provider, e.g. a rate limit that has passed); --resume then defaults to the latest run, finished or not',
    )
    .option(
      '--nanocoder <path>',
      'Nanocoder build to evaluate: a checkout directory or its dist/cli.js',
    )
    .option(
      '--node <path>',
      'Node >= 22.19 binary to run Nanocoder with (default: NANOBENCH_NODE, else the pinned runtime/, else node on PATH)',
    )
    .option('--scripts <dir>', 'scripted model definitions, for --provider scripted')
    .option(
      '--providers-config <file>',
      'providers file naming base URLs and key variables (default: ./nanobench.providers.json)',
    )
    .option('--record <dir>', "write each trial's cassette here (default: its artifacts dir)")
    .option('--replay <dir>', 'serve model replies from recorded cassettes; no provider is called')
    .option('--token-budget <n>', 'per-trial token budget; past it, a context-length error')
    .option('--request-budget <n>', 'per-trial request budget, enforced the same way')
    .option('--shard <i/n>', 'run only slice I of N of the plan (combine with "nanobench merge")')
    .option('--queue <url>', 'enqueue trials on Redis for "nanobench worker"s (redis://HOST:PORT)')
    .option(
      '--sandbox <mode>',
      `isolate the agent and the test runs: ${sandboxHelp('bwrap when it works here, else what none gives, never for an LLM agent against a real model')}`,
      RUN_DEFAULTS.sandbox,
    )
    .option('--image <ref>', 'podman/docker: the image of tasks that declare no environment')
    .option(
      '--build-arg <NAME=VALUE...>',
      'podman/docker: build argument of every environment build (e.g. BASE_IMAGE=localhost/x)',
    )
    .option(
      '--integrity <mode>',
      'off | flag | strict: record integrity flags; strict fails a flagged trial that scored',
      RUN_DEFAULTS.integrity,
    )
    .option(
      '--provision <mode>',
      'auto | overlay | fuse-overlayfs | reflink | copy: how trial workspaces are made from the prepared environment (auto: the fastest that works here)',
      RUN_DEFAULTS.provision,
    )
    .option(
      '--calibrating',
      'also run tasks still calibrating; their trials are the observations "nanobench calibration" reads',
    )
    .option('--json', 'print one JSON document with every trial on stdout');
}

/**
 * Options checked, the run resolved (fresh, or the stored one a resume finishes), run with
 * progress on stderr, and its results printed. Bad options are refused before the database is
 * created; a resume needs the database.
 */
async function runCommand(
  datasets: string[],
  o: RunFlags,
  cmd: Command,
  io: Io,
  setExit: (code: number) => void,
): Promise<void> {
  const typed = cmd.options
    .map((opt) => opt.attributeName())
    .filter((name) => cmd.getOptionValueSource(name) === 'cli');
  checkResumeOptions(o.resume !== undefined, datasets, typed);
  // With --matrix, --mode counts only when typed (its default would clash with the file's).
  const mode = o.matrix && !typed.includes('mode') ? undefined : o.mode;
  const fresh = o.resume === undefined ? resolveWithMatrix(datasets, { ...o, mode }) : undefined;
  const retryErrors =
    o.retryErrors === undefined
      ? undefined
      : parseErrorCauses(o.retryErrors === true ? 'provider' : o.retryErrors);
  const store = Store.open(o.db, { mustExist: o.resume !== undefined });
  try {
    const resumeRun =
      o.resume === undefined
        ? undefined
        : findRunToResume(store, o.resume, retryErrors !== undefined, o.db);
    const config =
      fresh ??
      resumeConfig(resumeRun!, {
        queue: o.queue,
        provision: typed.includes('provision') ? o.provision : undefined,
      });
    // A wrong or silent queue is one line at once, before tasks are resolved (clones).
    if (config.queue) await (await import('../queue/probe.js')).probeRedis(config.queue);
    const result = await runWithProgress(
      config,
      store,
      new RunPaths(o.db, o.cacheDir),
      io,
      resumeRun && {
        run: resumeRun,
        takeOver: Boolean(o.takeOver),
        allowChangedTasks: Boolean(o.allowChangedTasks),
        ...(retryErrors && { retryErrors }),
      },
    );
    printResult(result, store, o, io, setExit);
  } finally {
    store.close();
  }
}

/** The session, its progress on stderr (a line now and then while a long trial runs). */
async function runWithProgress(
  config: RunConfig,
  store: Store,
  paths: RunPaths,
  io: Io,
  resume: ResumeOptions | undefined,
): Promise<SessionResult> {
  const progress = progressPrinter(io);
  reportStillRunning((line) => io.stderr.write(`nanobench: ${line}\n`), stillEveryMs());
  const result = await runSession(
    config,
    store,
    paths,
    {
      onPlan: (run, pending) => progress.plan(pending, run.plan_size, run.id),
      onStart: (s) => progress.start(s),
      onProgress: (e) => progress.progress(e),
      onSlots: (c) => progress.slots(c),
      log: (line) => io.stderr.write(`nanobench: ${line}\n`),
      executorFor: queueExecutor(config),
    },
    resume,
  );
  progress.end();
  reportStillRunning(undefined);
  return result;
}

/**
 * The results on stdout (JSON or the markdown summary), what went wrong on stderr, and the exit
 * code: 1 when the run was taken over or nothing was scored, 130 when interrupted.
 */
function printResult(
  result: SessionResult,
  store: Store,
  o: { json?: boolean; db: string },
  io: Io,
  setExit: (code: number) => void,
): void {
  if (result.lostTo) {
    io.stderr.write(
      `nanobench: run ${result.run.id} was taken over by ${result.lostTo}; this process stopped\n`,
    );
    setExit(1);
  }
  // Labels as every report shows them: the database's latest Level-4 audit applies.
  const audit = store.latestAudit();
  const shown = applyAudit(result.trials, audit?.agreement);
  if (o.json) io.stdout.write(`${JSON.stringify(runView(result.run, shown), null, 2)}\n`);
  else io.stdout.write(markdownSummary(result.run, result.trials, audit));
  const failed = infraOnly(result.trials);
  if (failed) {
    io.stderr.write(`nanobench: ${failed}\n`);
    setExit(1);
  }
  const refused = result.trials.filter((t) => t.error_stage === 'provider').length;
  if (refused && !result.interrupted)
    io.stderr.write(
      `nanobench: ${refused} trial(s) ended on the provider (stored as provider errors, not scored); once it serves again: nanobench run --resume ${result.run.id} --retry-errors --db ${o.db}\n`,
    );
  if (result.interrupted) {
    io.stderr.write(
      `nanobench: interrupted; finish with: nanobench run --resume ${result.run.id} --db ${o.db}\n`,
    );
    setExit(130);
  }
}

/**
 * A run in which no trial could be scored measured nothing: say why (the most common causes)
 * and exit 1, so a script or CI job does not take it for a result.
 */
export function infraOnly(trials: TrialRecord[]): string | undefined {
  const errors = trials.filter((t) => t.status === 'error');
  if (trials.length === 0 || errors.length < trials.length) return undefined;
  const causes = new Map<string, number>();
  for (const t of errors) {
    const c = t.error_stage ? `${t.error_stage}/${t.error_code}` : t.error;
    causes.set(c, (causes.get(c) ?? 0) + 1);
  }
  const top = [...causes].sort((a, b) => b[1] - a[1]).slice(0, 3);
  const example = errors.find((t) => t.error)?.error ?? '';
  return `every trial of the run was an infrastructure error, nothing was scored (${top.map(([c, n]) => `${c} ×${n}`).join(', ')}); e.g. ${example.split('\n')[0].slice(0, 300)}`;
}

/**
 * The queue of workers as the run's executor, when --queue is given. Loaded only then: a local
 * run never loads bullmq or needs Redis.
 */
function queueExecutor(config: RunConfig): SessionHooks['executorFor'] {
  const url = config.queue;
  if (!url) return undefined;
  return async (o) => {
    const { createQueueExecutor } = await import('../queue/coordinator.js');
    return createQueueExecutor({ url, ...o });
  };
}
