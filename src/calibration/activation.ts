// The activation policy: when a calibrating task may become active, and what its record holds.
// It lives beside the calibration rule (not in the CLI) so every caller applies the same gates.
import { contentDigest } from '../task/digest.js';
import { activateTask, keepSaturated } from '../task/governance.js';
import type { LoadedTask } from '../task/load.js';
import { UserError } from '../util/errors.js';
import type { TaskCalibration } from './calibration.js';

export interface ActivationRequest {
  file: string;
  lt: LoadedTask;
  cal: TaskCalibration;
  /** The approval rationale. */
  reason: string;
  /** Why it stays active although saturated; required when it is. */
  keepSaturated?: string;
  /** How the refusal messages name the commands to run next. */
  where: { dataset: string; dbs: string[]; mode: string };
  at: string;
}

const pct = (r: number | null) => `${((r ?? 0) * 100).toFixed(0)}%`;

/** The saturation record kept in the task file. */
function saturationRecord(cal: TaskCalibration, at: string, reason: string | undefined) {
  return {
    pooled_rate: cal.pooled.rate,
    passed: cal.pooled.passed,
    observations: cal.pooled.valid,
    marked_at: at,
    reason,
  };
}

/** Throws the first gate that refuses the activation, naming the command that clears it. */
export function checkActivation(r: ActivationRequest): void {
  const { lt, cal, where } = r;
  const id = lt.task.task_id;
  if (lt.task.status.state !== 'calibrating')
    throw new UserError(
      'NOT_CALIBRATING',
      `${r.file}: ${id} is ${lt.task.status.state}; only a calibrating task is activated`,
    );
  if (!cal.ready)
    throw new UserError(
      'NOT_CALIBRATED',
      `${id} is not calibrated: ${cal.qualified.length} of 3 configurations have 3 valid ${where.mode} observations (${cal.configurations.map((c) => `${c.configuration}: ${c.valid}`).join('; ') || `no observations in the runs of ${where.dbs.join(', ')}`}); run it with other models or Nanocoder builds: nanobench run ${where.dataset} --calibrating --task ${id} --runs 3 --model ...`,
    );
  const open = lt.task.disputes.filter((d) => !d.resolution);
  if (open.length)
    throw new UserError(
      'OPEN_DISPUTES',
      `${id} has ${open.length} open dispute(s) (${open.map((d) => d.claim).join('; ')}): resolve them first (nanobench task dispute ${id} --resolve N --resolution ...)`,
    );
  if (cal.saturated && !r.keepSaturated)
    throw new UserError(
      'SATURATED',
      `${id} is saturated: pooled solve rate ${pct(cal.pooled.rate)} (${cal.pooled.passed}/${cal.pooled.valid}) >= 0.9, so it would not separate models; give --keep-saturated "<why>" to activate it anyway, or retire it`,
    );
}

/** Applies the gates, then writes the activation into the task file; returns a summary line. */
export function activate(r: ActivationRequest): string {
  checkActivation(r);
  const { cal } = r;
  activateTask(
    r.file,
    {
      at: r.at,
      reason: r.reason,
      content_digest: contentDigest(r.lt.task),
      configurations: cal.qualified,
      observations: cal.pooled.valid,
    },
    cal.saturated ? saturationRecord(cal, r.at, r.keepSaturated) : undefined,
  );
  return `activated ${r.lt.task.task_id}: ${cal.qualified.length} configurations, ${cal.pooled.valid} observations, pooled solve rate ${pct(cal.pooled.rate)}`;
}

/** An active task stays active although saturated, with the reason recorded. */
export function keepActiveSaturated(
  file: string,
  taskId: string,
  cal: TaskCalibration,
  reason: string,
  at: string,
): string {
  if (!cal.saturated)
    throw new UserError(
      'NOT_SATURATED',
      `${taskId} is not saturated in these runs: pooled solve rate ${pct(cal.pooled.rate)} (${cal.pooled.passed}/${cal.pooled.valid})${cal.ready ? '' : ', and fewer than 3 configurations have 3 valid observations'}`,
    );
  keepSaturated(file, saturationRecord(cal, at, reason));
  return `${taskId} stays active, saturated at ${pct(cal.pooled.rate)}: ${reason}`;
}
