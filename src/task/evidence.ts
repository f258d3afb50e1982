// Gate evidence kept with a dataset: <dataset>/evidence/<task_id>.json holds one task's full
// validation (every gate, with its details) and the digest of the task it judged. A task is only
// as trustworthy as its evidence: a run records, per task, whether passing evidence exists for
// the task's current content, and reports mark trials on tasks without it.
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NANOBENCH_VERSION } from '../util/version.js';
import { contentDigest } from './digest.js';
import type { LoadedTask } from './load.js';

export const EVIDENCE_DIR = 'evidence';

/** The admission gates (src/gates/), in the order they run. */
export const GATE_IDS = [
  'schema',
  'reproducible',
  'verification',
  'flakiness',
  'contamination',
  'repo_score',
  'controls',
  'runtime',
] as const;
export type GateId = (typeof GATE_IDS)[number];

/** One gate's verdict on a task, as validate prints it and the evidence keeps it. */
export interface GateResult {
  gate: GateId;
  status: 'pass' | 'fail' | 'skip';
  reason: string;
  /** How to clear the gate; set on failures. */
  fix?: string;
  details?: Record<string, unknown>;
  ms: number;
}

export interface Evidence {
  task_id: string;
  /** Digest of the task file's content the gates judged (src/task/digest.ts). */
  task_digest: string;
  /**
   * The task's content digest (without status and disputes; absent in older evidence): the
   * evidence still holds after the task is activated, marked saturated or disputed.
   */
  content_digest?: string;
  admissible: boolean;
  validated_at: string;
  nanobench_version: string;
  /** Where it was validated: evidence from another machine says so. */
  environment: { node: string; platform: string };
  gates: GateResult[];
}

/**
 * passing: admissible evidence for the task as it is now; failing: the latest validation of this
 * content failed a gate; stale: evidence exists but for other content; missing: none.
 */
export type EvidenceStatus = 'passing' | 'failing' | 'stale' | 'missing';

export function evidenceFile(datasetDir: string, taskId: string): string {
  return join(datasetDir, EVIDENCE_DIR, `${taskId}.json`);
}

export function writeEvidence(datasetDir: string, e: Evidence): string {
  const file = evidenceFile(datasetDir, e.task_id);
  mkdirSync(join(datasetDir, EVIDENCE_DIR), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, `${JSON.stringify(e, null, 2)}\n`);
  renameSync(tmp, file);
  return file;
}

export function readEvidence(datasetDir: string, taskId: string): Evidence | undefined {
  const file = evidenceFile(datasetDir, taskId);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Evidence;
  } catch {
    return undefined; // unreadable evidence is no evidence
  }
}

export function evidenceStatus(lt: LoadedTask): EvidenceStatus {
  const e = readEvidence(lt.datasetDir, lt.task.task_id);
  if (!e) return 'missing';
  const same =
    e.task_digest === lt.digest ||
    (e.content_digest !== undefined && e.content_digest === contentDigest(lt.task));
  if (!same) return 'stale';
  return e.admissible && e.gates.every((g) => g.status === 'pass') ? 'passing' : 'failing';
}

export function newEvidence(
  taskId: string,
  digest: string,
  admissible: boolean,
  gates: GateResult[],
  content?: string,
): Evidence {
  return {
    task_id: taskId,
    task_digest: digest,
    ...(content && { content_digest: content }),
    admissible,
    validated_at: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    nanobench_version: NANOBENCH_VERSION,
    environment: { node: process.version, platform: `${process.platform} ${process.arch}` },
    gates,
  };
}
