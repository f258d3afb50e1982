// Governance of a dataset's tasks (whitepaper §14): tasks are retired, never deleted, and
// disputes are recorded in the task file with their resolution, so the history travels with the
// task. Edits keep the file's other fields as they are.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UserError } from '../util/errors.js';
import { MANIFEST_FILE, parseTask } from './load.js';

type RawTask = Record<string, unknown>;

/** Task files of a dataset directory (tasks/*.json, or *.json beside the manifest). */
export function taskFiles(datasetDir: string): string[] {
  const abs = resolve(datasetDir);
  const dir = existsSync(join(abs, 'tasks')) ? join(abs, 'tasks') : abs;
  if (!existsSync(dir)) throw new UserError('DATASET_NOT_FOUND', `${abs}: no such dataset`);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== MANIFEST_FILE)
    .sort()
    .map((f) => join(dir, f));
}

function readRaw(file: string): RawTask {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UserError('INVALID_TASK', `${file}: not valid JSON (${(e as Error).message})`);
  }
}

export function writeRaw(file: string, raw: RawTask): void {
  writeFileSync(file, `${JSON.stringify(raw, null, 2)}\n`);
}

/** The file of task `taskId` in a dataset (found by its task_id field, not its file name). */
export function findTaskFile(datasetDir: string, taskId: string): string {
  const hit = taskFiles(datasetDir).find((f) => readRaw(f).task_id === taskId);
  if (!hit) throw new UserError('UNKNOWN_TASK', `${resolve(datasetDir)}: no task "${taskId}"`);
  return hit;
}

/** Edit a task file; the result must still be a valid task. */
function edit(file: string, change: (raw: RawTask) => void): RawTask {
  const raw = readRaw(file);
  change(raw);
  parseTask(raw, file);
  writeRaw(file, raw);
  return raw;
}

export function retireTask(file: string, reason: string, version?: string): RawTask {
  if (!reason.trim()) throw new UserError('NO_REASON', 'a retired task needs a --reason');
  return edit(file, (raw) => {
    const status = raw.status as { state?: string; retired_in_version?: string } | undefined;
    if (status?.state === 'retired')
      throw new UserError(
        'ALREADY_RETIRED',
        `${file}: already retired${status.retired_in_version ? ` in ${status.retired_in_version}` : ''}`,
      );
    raw.status = {
      state: 'retired',
      reason,
      ...(version ? { retired_in_version: version } : {}),
    };
  });
}

/** Calibrated: a calibrating task becomes active, with the record of what calibrated it. */
export function activateTask(
  file: string,
  activated: Record<string, unknown>,
  saturated?: Record<string, unknown>,
): RawTask {
  return edit(file, (raw) => {
    const state = (raw.status as { state?: string } | undefined)?.state ?? 'active';
    if (state !== 'calibrating')
      throw new UserError(
        'NOT_CALIBRATING',
        `${file}: the task is ${state}; only a calibrating task is activated (nanobench task recalibrate returns one to calibrating)`,
      );
    raw.status = { state: 'active', activated, ...(saturated && { saturated }) };
  });
}

/** Record why an active, saturated task stays active. */
export function keepSaturated(file: string, saturated: Record<string, unknown>): RawTask {
  return edit(file, (raw) => {
    const status = (raw.status as Record<string, unknown> | undefined) ?? { state: 'active' };
    if (status.state !== 'active')
      throw new UserError(
        'NOT_ACTIVE',
        `${file}: the task is ${String(status.state)}; only an active task is kept despite saturation`,
      );
    raw.status = { ...status, saturated };
  });
}

/** Back to calibrating (its content changed, or a retired task returns): records dropped. */
export function recalibrateTask(file: string): RawTask {
  return edit(file, (raw) => {
    const state = (raw.status as { state?: string } | undefined)?.state ?? 'active';
    if (state === 'calibrating')
      throw new UserError('ALREADY_CALIBRATING', `${file}: the task is already calibrating`);
    raw.status = { state: 'calibrating' };
  });
}

interface Dispute {
  opened_at: string;
  by: string;
  claim: string;
  resolution?: string;
  resolved_at?: string;
}

const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export function openDispute(file: string, by: string, claim: string): Dispute[] {
  const raw = edit(file, (r) => {
    r.disputes = [...((r.disputes as Dispute[]) ?? []), { opened_at: now(), by, claim }];
  });
  return raw.disputes as Dispute[];
}

/** The task's disputes, in the order they were opened (none: an empty list). */
export function listDisputes(file: string): Dispute[] {
  return (readRaw(file).disputes as Dispute[] | undefined) ?? [];
}

/** Resolve dispute number `n` (1-based, in the order they were opened). */
export function resolveDispute(file: string, n: number, resolution: string): Dispute[] {
  const raw = edit(file, (r) => {
    const list = (r.disputes as Dispute[]) ?? [];
    const d = list[n - 1];
    if (!d) throw new UserError('NO_DISPUTE', `${file}: no dispute #${n} (it has ${list.length})`);
    if (d.resolution)
      throw new UserError('ALREADY_RESOLVED', `${file}: dispute #${n} is already resolved`);
    list[n - 1] = { ...d, resolution, resolved_at: now() };
    r.disputes = list;
  });
  return raw.disputes as Dispute[];
}

/** Record the fail_to_pass / pass_to_pass lists computed by the verification gate. */
export function recordTestLists(file: string, failToPass: string[], passToPass: string[]): void {
  edit(file, (raw) => {
    raw.fail_to_pass = failToPass;
    raw.pass_to_pass = passToPass;
  });
}
