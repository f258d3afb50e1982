// Finishing a stored run (`run --resume`): which options go with it, which run it finishes, the
// configuration it keeps, the causes --retry-errors names, and the checks a resumed session makes
// before it runs anything (changed tasks, trials to run again). The command only parses flags.

import type { RunRecord, Store } from '../store/store.js';
import { STAGES } from '../trial/stages.js';
import { UserError } from '../util/errors.js';
import { isRedacted } from '../util/redact-url.js';
import { parseProvision, parseQueueUrl, type RunConfig } from './config.js';
import { readRunConfig } from './stored-config.js';

/** Finishing a stored run. */
export interface ResumeOptions {
  run: RunRecord;
  /** Take the run from a holder that is not provably dead (src/run/lease.ts). */
  takeOver?: boolean;
  /** Grade the rest of the run on tasks whose files changed since it started. */
  allowChangedTasks?: boolean;
  /**
   * Run again the trials stored as infra errors of these causes (`--retry-errors`): a provider
   * that rate-limited or failed, once it serves again. Their old records are replaced.
   */
  retryErrors?: ErrorCause[];
}

/** An infra error's cause as `--retry-errors` names it: a stage, or a stage and a code. */
export interface ErrorCause {
  stage: string;
  code?: string;
}

/** The causes `--retry-errors` names ("provider", "provider/rate_limited,task"), checked. */
export function parseErrorCauses(text: string): ErrorCause[] {
  const causes = text
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean)
    .map((c) => {
      const [stage, code, extra] = c.split('/');
      if (extra !== undefined || !(STAGES as readonly string[]).includes(stage))
        throw new UserError(
          'BAD_OPTION',
          `--retry-errors: "${c}" is not a cause; give a stage (${STAGES.filter((s) => s !== 'interrupted').join(', ')}) or stage/code, comma-separated, e.g. provider or provider/rate_limited`,
        );
      return code ? { stage, code } : { stage };
    });
  if (!causes.length)
    throw new UserError('BAD_OPTION', '--retry-errors: name at least one cause, e.g. provider');
  return causes;
}

/** The options of `run` that only make sense with --resume (by their attribute names). */
export const RESUME_ONLY = ['takeOver', 'allowChangedTasks', 'retryErrors'] as const;

/** Options a resume accepts: where and how it runs, never what the run measures. */
const RESUME_COMPATIBLE = new Set<string>([
  'resume',
  'db',
  'cacheDir',
  'mirror',
  'queue',
  'concurrency',
  'provision',
  'json',
  'keepWorkspaces',
  ...RESUME_ONLY,
]);

const flagOf = (name: string) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/**
 * The options given beside --resume (or without it), checked: a resumed run keeps its stored
 * configuration, so anything that would change what it measures is an error rather than silently
 * ignored, and the resume-only options without --resume are refused. `typed` names the options
 * given on the command line (attribute names, e.g. "allowChangedTasks").
 */
export function checkResumeOptions(
  resuming: boolean,
  datasets: string[],
  typed: readonly string[],
): void {
  if (!resuming) {
    const alone = RESUME_ONLY.find((name) => typed.includes(name));
    if (alone) throw new UserError('BAD_OPTION', `${flagOf(alone)} goes with --resume`);
    return;
  }
  if (datasets.length)
    throw new UserError(
      'BAD_OPTION',
      `--resume continues a stored run with its own datasets; do not name datasets (${datasets.join(', ')})`,
    );
  const given = typed.filter((name) => !RESUME_COMPATIBLE.has(name));
  if (given.length)
    throw new UserError(
      'BAD_OPTION',
      `--resume keeps the run's stored configuration; ${given.map(flagOf).join(', ')} cannot be combined with it (start a new run instead)`,
    );
}

/**
 * The run `--resume [runId]` finishes: the one named, else the latest unfinished one (with
 * --retry-errors the latest, finished or not). `db` names the store in the error.
 */
export function findRunToResume(
  store: Store,
  which: string | true,
  retrying: boolean,
  db: string,
): RunRecord {
  const run =
    typeof which === 'string'
      ? store.getRun(which)
      : store
          .listRuns()
          .reverse()
          .find((r) => retrying || r.status !== 'finished');
  if (!run)
    throw new UserError(
      'NOTHING_TO_RESUME',
      typeof which === 'string' ? `${db}: no run "${which}"` : `${db}: no unfinished run to resume`,
    );
  return run;
}

/**
 * A resumed run keeps its stored configuration; --queue may name (or re-name) the queue, and
 * --provision (when given) how workspaces are made, which is no part of what a run measures.
 */
export function resumeConfig(run: RunRecord, o: { queue?: string; provision?: string }): RunConfig {
  let config: RunConfig = readRunConfig(run);
  if (o.queue !== undefined) config = { ...config, queue: parseQueueUrl(o.queue) };
  else if (config.queue && isRedacted(config.queue))
    throw new UserError(
      'QUEUE_PASSWORD',
      `run ${run.id} used a queue with a password, which is not stored; pass --queue URL again`,
    );
  return o.provision === undefined ? config : { ...config, provision: parseProvision(o.provision) };
}

/**
 * A run is graded on one version of each task: resuming with task files that changed since it
 * started would mix two (an edited fail_to_pass list, say). Refused, naming the tasks.
 */
export function changedTasks(
  run: RunRecord,
  tasks: { task: { task_id: string }; digest: string }[],
): string[] {
  const stored = readRunConfig(run).task_digests;
  return tasks
    .filter((t) => stored[t.task.task_id] !== undefined && stored[t.task.task_id] !== t.digest)
    .map((t) => t.task.task_id);
}

/** Changed tasks stop a resume unless --allow-changed-tasks, which is said on the log. */
export function checkChangedTasks(
  resume: ResumeOptions,
  tasks: { task: { task_id: string }; digest: string }[],
  log?: (line: string) => void,
): void {
  const changed = changedTasks(resume.run, tasks);
  if (changed.length && !resume.allowChangedTasks)
    throw new UserError(
      'TASKS_CHANGED',
      `task(s) ${changed.join(', ')} changed since run ${resume.run.id} started (their digests differ from the ones stored with the run); a run is graded on one version of each task: restore the task files, start a new run, or pass --allow-changed-tasks to grade the rest on the new version`,
    );
  if (changed.length)
    log?.(`grading the rest of the run on the changed task(s) ${changed.join(', ')}`);
}

const countCauses = (causes: string[]) => {
  const n = new Map<string, number>();
  for (const c of causes) n.set(c, (n.get(c) ?? 0) + 1);
  return [...n].map(([c, k]) => `${c} ×${k}`).join(', ');
};

/** --retry-errors: the run's trials stored as infra errors of those causes are forgotten. */
export function forgetRetried(
  store: Store,
  runId: string,
  causes: ErrorCause[],
  log?: (line: string) => void,
): void {
  const forgotten = store.forgetErrorTrials(runId, causes);
  log?.(
    forgotten.length
      ? `running again ${forgotten.length} trial(s) stored as infra errors (${countCauses(forgotten)})`
      : 'no trial of the run is stored as an infra error of those causes',
  );
}
