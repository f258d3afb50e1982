// `task mine`, step 2: one candidate PR imported as a reference task (suites guessed) and run
// through the automatic admission gates: the environment built at base, the suites at base and
// with the golden patch, three base runs for flakiness, the verifier's time. Nothing here is new
// machinery: `task import` writes the task, `validate`'s gates judge it. What the verdict says is
// reduced to one reason a curator can act on (or skip the PR for).
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { neutralised } from '../gates/import-check.js';
import { type TaskValidation, validateTask } from '../gates/runner.js';
import type { GateId, GateResult } from '../task/evidence.js';
import { importFrom } from '../task/import.js';
import { InfraError, UserError } from '../util/errors.js';
import { ensureSourceClone } from '../workspace/source.js';
import type { Candidate } from './candidates.js';

/** Why a candidate was not admitted (the triage's reasons, then the gates'). */
export type RejectReason =
  | 'docs_only'
  | 'too_large'
  | 'no_tests'
  | 'no_source'
  | 'no_suite'
  | 'registry'
  | 'install_failed'
  | 'suite_broken'
  | 'no_failing_test'
  | 'golden_fails'
  | 'patch_error'
  | 'flaky'
  | 'too_slow'
  | 'error';

export const REASON_TEXT: Record<RejectReason, string> = {
  docs_only: 'docs only',
  too_large: 'too large',
  no_tests: 'no tests',
  no_source: 'no source change',
  no_suite: 'no suite guessed',
  registry: 'needs an unreachable registry',
  install_failed: 'install failed',
  suite_broken: 'suite did not report',
  no_failing_test: 'no failing test',
  golden_fails: 'nothing passes with the golden patch',
  patch_error: 'patches do not apply',
  flaky: 'flaky',
  too_slow: 'too slow',
  error: 'error',
};

export interface Timings {
  /** Source clone, patches and the environment (install command) at base. */
  env_ms: number;
  /** The base run and the golden run. */
  verify_ms: number;
  /** The two more base runs of the flakiness gate. */
  flaky_ms: number;
  /** The slowest single verifier run (what the runtime gate compares with verifier_sec). */
  slowest_run_ms?: number;
  total_ms: number;
}

export interface Verdict {
  admitted: boolean;
  reason?: RejectReason;
  /** One line: the counts when admitted, the gate's own words when not. */
  detail: string;
  task_id?: string;
  fail_to_pass?: number;
  pass_to_pass?: number;
  timings?: Timings;
  /** The imported task with the computed test lists (curator fields still TODO): what --out writes. */
  task?: Record<string, unknown>;
}

export interface JudgeOptions {
  cacheDir: string;
  /** Scratch directory of this mining session (the caller removes it). */
  workDir: string;
  /** owner/name: the task's repo. */
  repo: string;
  /** Base of PR URLs (https://github.com/owner/name), when known. */
  prBase?: string;
  narrow: boolean;
  verifierSec?: number;
  log?: (line: string) => void;
}

/** The gates a mined candidate must pass without a curator: everything but the curator's work. */
export const MINE_GATES: GateId[] = ['reproducible', 'verification', 'flakiness', 'runtime'];

// What pip, npm, git and the resolver say when the network or the registry is not there.
const UNREACHABLE =
  /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ENETUNREACH|getaddrinfo|Temporary failure in name resolution|Name or service not known|Network is unreachable|Failed to establish a new connection|Could not resolve host|No matching distribution found|Could not find a version that satisfies|network request .* failed|unable to access 'https?:/i;

/** The install's whole log, when the message names where it was kept. */
function installLog(message: string): string {
  const file = /the whole output is in (\S+)$/.exec(message)?.[1];
  return file && existsSync(file) ? readFileSync(file, 'utf8') : message;
}

const failed = (v: TaskValidation) => v.gates.find((g) => g.status === 'fail');
const gate = (v: TaskValidation, id: GateId) => v.gates.find((g) => g.gate === id);

/** The first failed gate as one reason. */
export function reasonOf(g: GateResult): RejectReason {
  const problem = g.details?.problem;
  switch (g.gate) {
    case 'reproducible':
      if (g.details?.stage === 'install')
        return UNREACHABLE.test(installLog(g.reason)) ? 'registry' : 'install_failed';
      return g.details?.code ? 'patch_error' : 'error';
    case 'verification':
      if (problem === 'no_failing_test') return 'no_failing_test';
      if (problem === 'golden_fails') return 'golden_fails';
      if (problem === 'timed_out') return 'too_slow';
      if (problem === 'golden_patch' || problem === 'test_patch') return 'patch_error';
      return problem ? 'suite_broken' : 'error';
    case 'flakiness':
      if (problem === 'timed_out') return 'too_slow';
      return problem ? 'suite_broken' : 'flaky';
    case 'runtime':
      return 'too_slow';
    default:
      return 'error';
  }
}

function timings(v: TaskValidation): Timings {
  const ms = (id: GateId) => gate(v, id)?.ms ?? 0;
  const slowest = gate(v, 'runtime')?.details?.slowest_ms;
  return {
    env_ms: ms('reproducible'),
    verify_ms: ms('verification'),
    flaky_ms: ms('flakiness'),
    ...(typeof slowest === 'number' && { slowest_run_ms: slowest }),
    total_ms: v.gates.reduce((n, g) => n + g.ms, 0),
  };
}

/** Import the candidate and run the automatic gates on it. */
export async function judgeCandidate(
  gitDir: string,
  location: string,
  c: Candidate,
  o: JudgeOptions,
): Promise<Verdict> {
  let raw: Record<string, unknown>;
  try {
    raw = importFrom(gitDir, location, {
      repo: location,
      commit: c.commit,
      name: o.repo,
      ...(c.pr !== undefined && { id: `${o.repo.split('/').pop()}-${c.pr}` }),
      pr: o.prBase && c.pr !== undefined ? `${o.prBase}/pull/${c.pr}` : undefined,
      reference: true,
      narrow: o.narrow,
    }).task;
  } catch (e) {
    if (!(e instanceof UserError) && !(e instanceof InfraError)) throw e;
    return {
      admitted: false,
      reason: e instanceof UserError && e.code === 'NO_SOURCE_CHANGE' ? 'no_source' : 'error',
      detail: e.message,
    };
  }
  const taskId = String(raw.task_id);
  if (o.verifierSec) raw.timeouts = { ...(raw.timeouts as object), verifier_sec: o.verifierSec };
  const filled = neutralised(raw);
  const suites = filled.test_suites as { command?: unknown }[];
  if (typeof filled.test_command !== 'string' || suites.some((s) => typeof s.command !== 'string'))
    return {
      admitted: false,
      reason: 'no_suite',
      detail: 'no test suite could be guessed',
      task_id: taskId,
    };
  // A temporary dataset of one task: the gates read the task from a file, as validate does.
  const dataset = join(o.workDir, 'datasets', taskId);
  const file = join(dataset, 'tasks', `${taskId}.json`);
  mkdirSync(join(dataset, 'tasks'), { recursive: true });
  writeFileSync(file, `${JSON.stringify(filled, null, 2)}\n`);
  try {
    // NanoBench's clone of the repository is filled from the repository being mined, so the gates
    // never need the task's repo_url (a remote this machine may not reach).
    await ensureSourceClone(
      o.cacheDir,
      String(raw.repo),
      { location: gitDir, kind: 'local' },
      { commits: [c.base, c.commit], log: o.log },
    );
  } catch (e) {
    if (!(e instanceof InfraError)) throw e;
    return { admitted: false, reason: 'error', detail: e.message, task_id: taskId };
  }
  const v = await validateTask(
    file,
    dataset,
    undefined,
    { cacheDir: o.cacheDir, workDir: join(o.workDir, 'gates'), write: true, log: o.log },
    MINE_GATES,
    true,
  );
  const t = timings(v);
  const bad = failed(v);
  if (bad)
    return {
      admitted: false,
      reason: reasonOf(bad),
      detail: `${bad.gate}: ${bad.reason}`,
      task_id: taskId,
      timings: t,
    };
  const lists = gate(v, 'verification')?.details as
    | { fail_to_pass: string[]; pass_to_pass: string[] }
    | undefined;
  const f2p = lists?.fail_to_pass ?? [];
  const p2p = lists?.pass_to_pass ?? [];
  return {
    admitted: true,
    detail: `${f2p.length} fail_to_pass, ${p2p.length} pass_to_pass`,
    task_id: taskId,
    fail_to_pass: f2p.length,
    pass_to_pass: p2p.length,
    timings: t,
    task: { ...raw, fail_to_pass: f2p, pass_to_pass: p2p },
  };
}
