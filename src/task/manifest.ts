// The dataset manifest, <dataset>/dataset.json: name, version, contamination cutoff, the
// maintainer's repository scores, and the active tasks with a content digest each. A version of
// the dataset is identified by its digest (over the active tasks' ids and digests), so retiring,
// adding or changing a task changes it; retired tasks are listed apart, their files kept.
// Calibrating tasks are listed apart too (they are not part of the version), and so are the
// active tasks kept although saturated, with the recorded reason (release notes read both).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { UserError } from '../util/errors.js';
import { canonicalJson, sha256 } from './digest.js';
import { formatIssue, loadDataset, MANIFEST_FILE } from './load.js';

export { canonicalJson, taskDigest } from './digest.js';

/** Repository-matrix axes only a maintainer can score, with their maximum points. */
export const MAINTAINER_AXES = { maintenance: 2, architecture: 2 } as const;
export type MaintainerAxis = keyof typeof MAINTAINER_AXES;

const points = (max: number) => z.number().int().min(0).max(max);

export const RepoRecordSchema = z
  .object({
    maintenance: points(MAINTAINER_AXES.maintenance).optional(),
    architecture: points(MAINTAINER_AXES.architecture).optional(),
    note: z.string().optional().describe('why: the maintainer reasoning, for the record'),
    waiver: z
      .string()
      .min(1)
      .optional()
      .describe(
        'why this repository is admitted below the required score (e.g. a fixture repository); the gate passes and says so',
      ),
  })
  .strict();
export type RepoRecord = z.infer<typeof RepoRecordSchema>;

export const ManifestSchema = z
  .object({
    name: z.string().min(1),
    version: z.string().min(1),
    cutoff: z
      .string()
      .datetime({ offset: true, message: 'an ISO-8601 date-time, e.g. 2025-12-01T00:00:00Z' })
      .nullable()
      .default(null),
    digest: z.string().optional(),
    repos: z.record(RepoRecordSchema).default({}),
    tasks: z
      .array(z.object({ task_id: z.string(), file: z.string(), digest: z.string() }).strict())
      .default([]),
    retired: z
      .array(
        z
          .object({
            task_id: z.string(),
            file: z.string(),
            reason: z.string(),
            retired_in_version: z.string().optional(),
          })
          .strict(),
      )
      .default([]),
    calibrating: z
      .array(z.object({ task_id: z.string(), file: z.string(), digest: z.string() }).strict())
      .default([]),
    saturated: z
      .array(
        z.object({ task_id: z.string(), pooled_rate: z.number(), reason: z.string() }).strict(),
      )
      .default([]),
  })
  .strict();
export type Manifest = z.infer<typeof ManifestSchema>;

export function datasetDigest(tasks: { task_id: string; digest: string }[]): string {
  return sha256(canonicalJson(tasks.map((t) => ({ task_id: t.task_id, digest: t.digest }))));
}

/** A cutoff given by the user: a date (midnight UTC) or a date-time with a zone. */
export function parseCutoff(value: string, flag = '--cutoff'): string {
  const ok = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/.test(value);
  const ms = Date.parse(/T/.test(value) ? value : `${value}T00:00:00Z`);
  if (!ok || Number.isNaN(ms))
    throw new UserError(
      'BAD_OPTION',
      `${flag} must be a date (2025-12-01) or an ISO-8601 date-time, got "${value}"`,
    );
  return new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
}

export function manifestPath(datasetDir: string): string {
  return join(resolve(datasetDir), MANIFEST_FILE);
}

export function loadManifest(datasetDir: string): Manifest | undefined {
  const file = manifestPath(datasetDir);
  if (!existsSync(file)) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UserError('INVALID_MANIFEST', `${file}: not valid JSON (${(e as Error).message})`);
  }
  const r = ManifestSchema.safeParse(raw);
  if (!r.success)
    throw new UserError(
      'INVALID_MANIFEST',
      r.error.issues.map((i) => formatIssue(file, i)).join('\n'),
    );
  return r.data;
}

export interface ManifestChanges {
  name?: string;
  version?: string;
  cutoff?: string;
}

/** The manifest the dataset's task files call for now (the existing one's name, repos... kept). */
export function buildManifest(datasetDir: string, changes: ManifestChanges = {}): Manifest {
  const dir = resolve(datasetDir);
  const prev = loadManifest(dir);
  const loaded = loadDataset(dir);
  const rel = (f: string) => relative(dir, f);
  const tasks = loaded
    .filter((t) => t.task.status.state === 'active')
    .map((t) => ({ task_id: t.task.task_id, file: rel(t.file), digest: t.digest }));
  const retired = loaded
    .filter((t) => t.task.status.state === 'retired')
    .map((t) => ({
      task_id: t.task.task_id,
      file: rel(t.file),
      reason: t.task.status.reason ?? '',
      ...(t.task.status.retired_in_version
        ? { retired_in_version: t.task.status.retired_in_version }
        : {}),
    }));
  const calibrating = loaded
    .filter((t) => t.task.status.state === 'calibrating')
    .map((t) => ({ task_id: t.task.task_id, file: rel(t.file), digest: t.digest }));
  const saturated = loaded.flatMap((t) =>
    t.task.status.state === 'active' && t.task.status.saturated
      ? [
          {
            task_id: t.task.task_id,
            pooled_rate: t.task.status.saturated.pooled_rate,
            reason: t.task.status.saturated.reason,
          },
        ]
      : [],
  );
  const cutoff = changes.cutoff ? parseCutoff(changes.cutoff) : (prev?.cutoff ?? null);
  return {
    name: changes.name ?? prev?.name ?? basename(dir),
    version: changes.version ?? prev?.version ?? '0.1.0',
    cutoff,
    digest: datasetDigest(tasks),
    repos: prev?.repos ?? {},
    tasks,
    retired,
    calibrating,
    saturated,
  };
}

export function writeManifest(datasetDir: string, m: Manifest): string {
  const file = manifestPath(datasetDir);
  writeFileSync(file, `${JSON.stringify(m, null, 2)}\n`);
  return file;
}
