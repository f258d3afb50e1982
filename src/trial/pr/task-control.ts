// Whose fault is a test that never reported? A suite that wrote no report (`no_report`), or a
// fail_to_pass / pass_to_pass id its suite ran without naming, is the task's fault when the task's
// own golden patch leaves it unreported too (the lists name a test the suite does not have, the
// result_file is one the runner never writes): then the trial is an infra error of the task
// (`task/no_report`, `task/targets_missing`), never the agent's score. When the golden patch does
// report it, the agent's change made it vanish (a runner it crashed, a module that exits at
// import) and it counts as failed, as before: an agent cannot void its trial by breaking the
// runner. The golden run is the oracle through the same trial pipeline, once per run and task.
import { oracleAgent } from '../../agent/controls.js';
import type { ResolvedTask } from '../../task/patches.js';
import { InfraError } from '../../util/errors.js';
import {
  describeStatus,
  lastOutput,
  type SuiteRun,
  type Verification,
} from '../../verify/verifier.js';
import type { Unreported } from '../details.js';
import type { TrialEnv } from '../env.js';
import type { TrialDraft, TrialRecord } from '../record.js';
import type { TrialSpec } from '../spec.js';

/** Runs a control trial of the task (the PR kind passes its own template run). */
export type RunControl = (spec: TrialSpec, env: TrialEnv) => Promise<TrialRecord>;

export type { Unreported };

export function unreported(task: ResolvedTask, v: Verification): Unreported {
  const reported = new Set(v.suites.filter((x) => x.status === 'reported').map((x) => x.name));
  const missing = [...task.fail_to_pass, ...task.pass_to_pass].filter(
    (id) =>
      !v.outcomes.has(id) &&
      reported.has(id.split('::')[0]) &&
      !v.suites.some((x) => id.startsWith(`${x.name}::`) && x.fileErrors.length > 0),
  );
  const noReport = v.suites.filter((x) => x.status === 'no_report').map((x) => x.name);
  return { noReport, missing };
}

export const isEmpty = (u: Unreported) => u.noReport.length === 0 && u.missing.length === 0;

/** The task's golden verdict, or why it could not be had. */
export type GoldenVerdict =
  | { unreported: Unreported; artifacts: string | null }
  | { error: string };

// One golden run per (results root, run, task version) in this process; trials share it.
const golden = new Map<string, Promise<GoldenVerdict>>();

/** The oracle's trial of the task, as a control: what its golden patch leaves unreported. */
export function goldenVerdict(
  spec: TrialSpec,
  env: TrialEnv,
  runControl: RunControl,
): Promise<GoldenVerdict> {
  const key = `${env.paths.root}\0${env.runId}\0${spec.task.digest}`;
  let v = golden.get(key);
  if (!v) {
    v = runGolden(spec, env, runControl);
    golden.set(key, v);
  }
  return v;
}

async function runGolden(
  spec: TrialSpec,
  env: TrialEnv,
  runControl: RunControl,
): Promise<GoldenVerdict> {
  const control: TrialSpec = {
    ...spec,
    key: `${spec.task.task.task_id}|golden-control`,
    agent: 'oracle',
    provider: 'none',
    model: 'none',
    mode: 'hinted',
    attempt: 1,
  };
  const agent = env.services?.goldenAgent ?? oracleAgent;
  const rec = await runControl(control, {
    ...env,
    agent,
    endpointFor: undefined,
    control: true,
  });
  const found = rec.details.unreported;
  if (rec.status === 'scored' || found)
    return { unreported: found ?? { noReport: [], missing: [] }, artifacts: rec.artifacts_dir };
  return { error: rec.error };
}

function noReportError(task: ResolvedTask, suites: SuiteRun[], golden: boolean): InfraError {
  const s = suites[0];
  const more =
    suites.length > 1
      ? ` (and ${suites
          .slice(1)
          .map((x) => x.name)
          .join(', ')})`
      : '';
  return new InfraError(
    'task',
    `task ${task.task_id}: suite ${s.name}${more} ${describeStatus(s)}${golden ? ', with the golden patch too' : ' with the golden patch'}; the runner's last output: ${lastOutput(s, 3)}; fix the suite's command or result_file (nanobench validate names the problem)`,
    'no_report',
  );
}

function missingError(task: ResolvedTask, ids: string[], golden: boolean): InfraError {
  const all = task.fail_to_pass.length + task.pass_to_pass.length;
  return new InfraError(
    'task',
    `task ${task.task_id}: ${ids.length} of its ${all} fail_to_pass / pass_to_pass tests never reported, ${golden ? 'with the golden patch too' : 'with the golden patch'} (${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', ...' : ''}); its lists name tests its suites do not run: re-record them with nanobench validate --write`,
    'targets_missing',
  );
}

/**
 * The task's infra error for what this trial left unreported, if the task is at fault: at once
 * when the trial is the golden patch itself (the oracle, or a control), else when the task's
 * golden run leaves the same suite or target unreported. Records the evidence in `rec.details`.
 */
export async function taskFault(
  rec: TrialDraft,
  spec: TrialSpec & { task: { task: ResolvedTask } },
  env: TrialEnv,
  v: Verification,
  runControl: RunControl,
): Promise<InfraError | undefined> {
  const task = spec.task.task;
  const mine = unreported(task, v);
  if (isEmpty(mine)) return undefined;
  rec.details.unreported = mine;
  const suites = (names: string[]) => v.suites.filter((s) => names.includes(s.name));
  if (env.control || env.agent.name === 'oracle') {
    if (mine.noReport.length) return noReportError(task, suites(mine.noReport), false);
    return missingError(task, mine.missing, false);
  }
  const g = await goldenVerdict(spec, env, runControl);
  if ('error' in g) {
    // Nothing says whose fault it is: graded as before, with what was tried.
    rec.details.golden_control = { error: g.error.slice(0, 500) };
    return undefined;
  }
  rec.details.golden_control = { unreported: g.unreported, artifacts_dir: g.artifacts };
  const both = mine.noReport.filter((s) => g.unreported.noReport.includes(s));
  if (both.length) return noReportError(task, suites(both), true);
  const ids = mine.missing.filter((id) => g.unreported.missing.includes(id));
  if (ids.length) return missingError(task, ids, true);
  return undefined;
}
