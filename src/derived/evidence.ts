// Selftest evidence kept with a dataset: <dataset>/selftest/<task_id>.json holds one task's
// selftest (every behaviour, both modes) tied to the task's digest and the Nanocoder version it
// ran, as gate evidence is kept (src/gates/evidence.ts). It says the real Nanocoder got through
// this task's repository and that the rules read what it did there as they should.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { contentDigest } from '../task/digest.js';
import type { LoadedTask } from '../task/load.js';
import { NANOBENCH_VERSION } from '../util/version.js';
import { BEHAVIOURS } from './behaviours.js';
import type { SelftestCase } from './selftest.js';

export const SELFTEST_DIR = 'selftest';

export interface SelftestEvidence {
  task_id: string;
  task_digest: string;
  /** Without status and disputes: the evidence holds after the task is activated or disputed. */
  content_digest: string;
  nanocoder_version: string;
  nanobench_version: string;
  recorded_at: string;
  run_id: string;
  /** Every case matched or could not be built (with why). */
  ok: boolean;
  cases: Omit<SelftestCase, 'task'>[];
}

export type SelftestEvidenceStatus = 'ok' | 'mismatch' | 'stale' | 'incomplete' | 'missing';

export const selftestEvidenceFile = (datasetDir: string, taskId: string) =>
  join(datasetDir, SELFTEST_DIR, `${taskId}.json`);

/** A task's evidence from its cases, or why there is none to record (a case did not run). */
export function newSelftestEvidence(
  lt: LoadedTask,
  cases: SelftestCase[],
  run: { run_id: string; nanocoder_version: string },
): SelftestEvidence | string {
  const mine = cases.filter((c) => c.task === lt.task.task_id);
  if (mine.length < BEHAVIOURS.length * 2)
    return `only ${mine.length} of ${BEHAVIOURS.length * 2} cases ran (interrupted?)`;
  return {
    task_id: lt.task.task_id,
    task_digest: lt.digest,
    content_digest: contentDigest(lt.task),
    nanocoder_version: run.nanocoder_version,
    nanobench_version: NANOBENCH_VERSION,
    recorded_at: new Date().toISOString(),
    run_id: run.run_id,
    ok: mine.every((c) => c.match !== false),
    // What a reader needs; the trial's full error stays in the results database.
    cases: mine.map(({ task: _t, error: _e, artifacts_dir: _a, ...c }) => c),
  };
}

export function writeSelftestEvidence(datasetDir: string, e: SelftestEvidence): string {
  const file = selftestEvidenceFile(datasetDir, e.task_id);
  mkdirSync(join(datasetDir, SELFTEST_DIR), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(e, null, 2)}\n`);
  renameSync(tmp, file);
  return file;
}

export function readSelftestEvidence(datasetDir: string, taskId: string) {
  const file = selftestEvidenceFile(datasetDir, taskId);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as SelftestEvidence;
  } catch {
    return undefined; // unreadable evidence is no evidence
  }
}

/**
 * ok: a complete selftest of the task as it is now with no mismatch; mismatch: one case did not
 * match; stale: recorded for other content; incomplete: not every behaviour in both modes.
 */
export function selftestEvidenceStatus(lt: LoadedTask): SelftestEvidenceStatus {
  const e = readSelftestEvidence(lt.datasetDir, lt.task.task_id);
  if (!e) return 'missing';
  if (e.task_digest !== lt.digest && e.content_digest !== contentDigest(lt.task)) return 'stale';
  const ran = new Set(e.cases.map((c) => `${c.behaviour}/${c.mode}`));
  if (BEHAVIOURS.some((b) => !ran.has(`${b}/hinted`) || !ran.has(`${b}/navigation`)))
    return 'incomplete';
  return e.ok ? 'ok' : 'mismatch';
}
