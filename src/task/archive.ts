// Releases and the archive of a dataset. Releasing version V freezes it under archive/V/ (its
// manifest, the task files of its active tasks, their contract cases and gate evidence, and the
// release notes), moves the tasks retired in V out of tasks/ into archive/V/retired/, and records
// them in archive/deprecations.json. An archived version runs exactly as released: loading it
// checks every task against the digests of its manifest (src/task/load.ts), and
// `DATASET@VERSION` names it (src/task/registry.ts).
//
//   <dataset>/archive/deprecations.json        every task retired in a release: when, why, where
//   <dataset>/archive/<V>/dataset.json          the manifest of V as released
//   <dataset>/archive/<V>/tasks/*.json          its active tasks
//   <dataset>/archive/<V>/contracts/<task_id>/  their contract cases
//   <dataset>/archive/<V>/evidence/<task_id>.json
//   <dataset>/archive/<V>/RELEASE.md            release notes (the manifest diff)
//   <dataset>/archive/<V>/retired/{tasks,contracts,evidence}/  the tasks retired in V
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { UserError } from '../util/errors.js';
import { writeUserFile } from '../util/write.js';
import { contentDigest } from './digest.js';
import { formatIssue, loadTaskFile } from './load.js';
import { buildManifest, loadManifest, type Manifest, writeManifest } from './manifest.js';

export const ARCHIVE_DIR = 'archive';
export const DEPRECATIONS_FILE = 'deprecations.json';
export const RELEASE_NOTES_FILE = 'RELEASE.md';

const DeprecationsSchema = z
  .object({
    deprecations: z.array(
      z
        .object({
          task_id: z.string(),
          deprecated_in: z.string().describe('the release that no longer holds it'),
          reason: z.string(),
          last_released_in: z.string().nullable().describe('the last release that held it'),
          archived: z.string().describe('its task file, relative to the dataset'),
        })
        .strict(),
    ),
  })
  .strict();
export type Deprecations = z.infer<typeof DeprecationsSchema>;

/** Version order: numeric parts numerically (1.10.0 after 1.9.0), anything else as text. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/);
  const pb = b.split(/[.-]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const [x, y] = [pa[i] ?? '', pb[i] ?? ''];
    const [nx, ny] = [Number(x), Number(y)];
    const c =
      x !== '' && y !== '' && Number.isInteger(nx) && Number.isInteger(ny)
        ? nx - ny
        : x.localeCompare(y);
    if (c) return c;
  }
  return 0;
}

export function archiveDir(datasetDir: string, version: string): string {
  return join(resolve(datasetDir), ARCHIVE_DIR, version);
}

/** Released versions under archive/, oldest first. */
export function archivedVersions(datasetDir: string): string[] {
  const dir = join(resolve(datasetDir), ARCHIVE_DIR);
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'dataset.json')))
    .map((d) => d.name)
    .sort(compareVersions);
}

export function readDeprecations(datasetDir: string): Deprecations {
  const file = join(resolve(datasetDir), ARCHIVE_DIR, DEPRECATIONS_FILE);
  if (!existsSync(file)) return { deprecations: [] };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UserError('INVALID_ARCHIVE', `${file}: not valid JSON (${(e as Error).message})`);
  }
  const r = DeprecationsSchema.safeParse(raw);
  if (!r.success)
    throw new UserError(
      'INVALID_ARCHIVE',
      r.error.issues.map((i) => formatIssue(file, i)).join('\n'),
    );
  return r.data;
}

export interface ReleaseNotes {
  name: string;
  version: string;
  previous: { version: string; digest: string | undefined } | null;
  digest: string | undefined;
  added: string[];
  /** Content changed (what the task asks or how it is graded). */
  changed: string[];
  /** Only the status or disputes changed (activated, kept saturated, a ruling recorded). */
  governance: string[];
  retired: { task_id: string; reason: string }[];
  /** Left the task list without being retired (a deleted file): never silent. */
  removed: string[];
  saturated: { task_id: string; pooled_rate: number; reason: string }[];
  calibrating: string[];
}

/**
 * Release notes as the difference between two manifests. With the directories holding both
 * versions' task files, a task whose digest differs only through its status or disputes is told
 * apart from one whose content changed.
 */
export function releaseNotes(
  prev: Manifest | undefined,
  next: Manifest,
  dirs: { prev?: string; next?: string } = {},
): ReleaseNotes {
  const before = new Map((prev?.tasks ?? []).map((t) => [t.task_id, t.digest]));
  const now = new Map(next.tasks.map((t) => [t.task_id, t.digest]));
  const wasRetired = new Set((prev?.retired ?? []).map((t) => t.task_id));
  const wasSaturated = new Set((prev?.saturated ?? []).map((t) => t.task_id));
  const retiredNow = next.retired.filter((t) => !wasRetired.has(t.task_id));
  const content = (dir: string | undefined, m: Manifest | undefined, id: string) => {
    const entry = m?.tasks.find((t) => t.task_id === id);
    if (!dir || !entry || !existsSync(join(dir, entry.file))) return undefined;
    return contentDigest(loadTaskFile(join(dir, entry.file), dir).task);
  };
  const differing = [...now.keys()].filter(
    (id) => before.has(id) && before.get(id) !== now.get(id),
  );
  const governanceOnly = (id: string) => {
    const a = content(dirs.prev, prev, id);
    return a !== undefined && a === content(dirs.next, next, id);
  };
  return {
    name: next.name,
    version: next.version,
    previous: prev ? { version: prev.version, digest: prev.digest } : null,
    digest: next.digest,
    added: [...now.keys()].filter((id) => !before.has(id)),
    changed: differing.filter((id) => !governanceOnly(id)),
    governance: differing.filter(governanceOnly),
    retired: retiredNow.map((t) => ({ task_id: t.task_id, reason: t.reason })),
    removed: [...before.keys()].filter(
      (id) => !now.has(id) && !next.retired.some((t) => t.task_id === id),
    ),
    saturated: next.saturated.filter((t) => !wasSaturated.has(t.task_id)),
    calibrating: next.calibrating.map((t) => t.task_id),
  };
}

export function releaseNotesMarkdown(n: ReleaseNotes, date: string): string {
  const section = (title: string, items: string[]) =>
    items.length ? ['', `## ${title} (${items.length})`, '', ...items.map((x) => `- ${x}`)] : [];
  const lines = [
    `# ${n.name} ${n.version}`,
    '',
    `Released ${date}. Dataset digest \`${n.digest}\`${n.previous ? `; previous version ${n.previous.version} (\`${n.previous.digest}\`)` : '; first release'}.`,
    ...section('Added', n.added),
    ...section('Changed (content differs: re-run them before comparing)', n.changed),
    ...section('Status or disputes changed (content unchanged)', n.governance),
    ...section(
      'Retired',
      n.retired.map((t) => `${t.task_id}: ${t.reason}`),
    ),
    ...section('Removed without being retired', n.removed),
    ...section(
      'Saturated, kept active (they no longer separate models)',
      n.saturated.map((t) => `${t.task_id} (${(t.pooled_rate * 100).toFixed(0)}%): ${t.reason}`),
    ),
    ...section('Still calibrating, not part of this release', n.calibrating),
  ];
  if (
    !n.added.length &&
    !n.changed.length &&
    !n.governance.length &&
    !n.retired.length &&
    !n.removed.length &&
    !n.saturated.length
  )
    lines.push('', 'No task was added, changed, retired or marked saturated.');
  return `${lines.join('\n')}\n`;
}

/**
 * The release a new version is compared with: the latest archived version (with its task
 * files), else the dataset's current manifest when it names another version.
 */
export function previousRelease(
  datasetDir: string,
  version: string,
): { manifest: Manifest; dir?: string } | undefined {
  const released = archivedVersions(datasetDir);
  if (released.length) {
    const dir = archiveDir(datasetDir, released[released.length - 1]);
    const manifest = loadManifest(dir);
    return manifest && { manifest, dir };
  }
  const current = loadManifest(datasetDir);
  return current && current.version !== version ? { manifest: current } : undefined;
}

export interface ReleaseResult {
  manifest: Manifest;
  notes: ReleaseNotes;
  markdown: string;
  archive: string;
  moved: string[];
}

function copyIfExists(from: string, to: string): void {
  if (!existsSync(from)) return;
  mkdirSync(dirname(to), { recursive: true });
  cpSync(from, to, { recursive: true });
}

function moveIfExists(from: string, to: string): void {
  if (!existsSync(from)) return;
  mkdirSync(dirname(to), { recursive: true });
  renameSync(from, to);
}

/**
 * Release version `version`: the notes from the manifest diff, the frozen copy under
 * archive/<version>/, the retired tasks moved there with their deprecation records, and the
 * dataset's manifest written for the version. `problems` (from the caller's release checks)
 * refuse the release, each line naming what to do.
 */
export function releaseDataset(
  datasetDir: string,
  version: string,
  o: { date: string; problems?: string[]; dryRun?: boolean },
): ReleaseResult {
  const dir = resolve(datasetDir);
  const archive = archiveDir(dir, version);
  if (existsSync(archive))
    throw new UserError(
      'VERSION_RELEASED',
      `${archive} exists: ${version} is released, and a released version is never rewritten; release the next version`,
    );
  if (o.problems?.length)
    throw new UserError(
      'RELEASE_CHECK',
      `${version} cannot be released:\n${o.problems.map((p) => `  ${p}`).join('\n')}`,
    );
  const previous = previousRelease(dir, version);
  const prev = previous?.manifest;
  const manifest = buildManifest(dir, { version });
  const notes = releaseNotes(prev, manifest, { prev: previous?.dir, next: dir });
  const markdown = releaseNotesMarkdown(notes, o.date);
  const moved: string[] = [];
  if (o.dryRun) return { manifest, notes, markdown, archive, moved };
  for (const t of manifest.tasks) {
    copyIfExists(join(dir, t.file), join(archive, t.file));
    copyIfExists(join(dir, 'contracts', t.task_id), join(archive, 'contracts', t.task_id));
    copyIfExists(
      join(dir, 'evidence', `${t.task_id}.json`),
      join(archive, 'evidence', `${t.task_id}.json`),
    );
  }
  writeManifest(archive, manifest);
  writeUserFile(join(archive, RELEASE_NOTES_FILE), markdown, 'release notes');
  const deprecations = readDeprecations(dir);
  for (const t of manifest.retired) {
    const to = join(archive, 'retired', t.file);
    moveIfExists(join(dir, t.file), to);
    moveIfExists(
      join(dir, 'contracts', t.task_id),
      join(archive, 'retired', 'contracts', t.task_id),
    );
    moveIfExists(
      join(dir, 'evidence', `${t.task_id}.json`),
      join(archive, 'retired', 'evidence', `${t.task_id}.json`),
    );
    deprecations.deprecations.push({
      task_id: t.task_id,
      deprecated_in: version,
      reason: t.reason,
      last_released_in: prev?.tasks.some((p) => p.task_id === t.task_id) ? prev.version : null,
      archived: `${ARCHIVE_DIR}/${version}/retired/${t.file}`,
    });
    moved.push(t.task_id);
  }
  if (moved.length)
    writeUserFile(
      join(dir, ARCHIVE_DIR, DEPRECATIONS_FILE),
      `${JSON.stringify(deprecations, null, 2)}\n`,
      'deprecations file',
    );
  // The working manifest describes the release; the retired tasks now live in the archive.
  writeManifest(dir, buildManifest(dir, { version }));
  return { manifest, notes, markdown, archive, moved };
}
