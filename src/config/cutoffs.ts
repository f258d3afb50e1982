// Per-model knowledge cutoffs, for contamination marks: a task merged before a model's cutoff may
// be in its training data, so its cells are marked (not dropped). A small JSON file, validated:
//   { "schema_version": 1, "models": [ { "provider": "openai", "model": "gpt-4o", "cutoff": "2023-10" } ] }
// "provider" is optional (then the entry matches the model under any provider). A cutoff given
// as a month (YYYY-MM) or a day (YYYY-MM-DD) runs to the END of that month or day (UTC): a task
// merged during the cutoff month counts as possibly seen.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { formatIssue } from '../task/load.js';
import { UserError } from '../util/errors.js';
import { PACKAGE_ROOT } from '../util/package-root.js';

export const DEFAULT_CUTOFFS_FILE = join(PACKAGE_ROOT, 'examples', 'model-cutoffs.json');

const CutoffEntrySchema = z
  .object({
    provider: z.string().min(1).optional(),
    model: z.string().min(1),
    cutoff: z
      .string()
      .regex(/^\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$/, 'a date YYYY-MM or YYYY-MM-DD'),
    source: z.string().optional().describe('where the date comes from (a URL or a document)'),
  })
  .strict();

export const CutoffsFileSchema = z
  .object({
    schema_version: z.literal(1),
    description: z.string().optional(),
    models: z.array(CutoffEntrySchema),
  })
  .strict();

export type CutoffEntry = z.infer<typeof CutoffEntrySchema>;

export interface Cutoffs {
  file: string;
  entries: CutoffEntry[];
}

export function parseCutoffs(raw: unknown, file: string): Cutoffs {
  const r = CutoffsFileSchema.safeParse(raw);
  if (!r.success)
    throw new UserError(
      'INVALID_CUTOFFS',
      r.error.issues.map((i) => formatIssue(file, i)).join('\n'),
    );
  return { file, entries: r.data.models };
}

export function loadCutoffs(path: string = DEFAULT_CUTOFFS_FILE): Cutoffs {
  const file = resolve(path);
  if (!existsSync(file))
    throw new UserError('CUTOFFS_NOT_FOUND', `${file}: no such knowledge-cutoff file (--cutoffs)`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UserError('INVALID_CUTOFFS', `${file}: not valid JSON (${(e as Error).message})`);
  }
  return parseCutoffs(raw, file);
}

/** The entry for provider/model: an exact provider match first, else a provider-less entry. */
export function cutoffFor(c: Cutoffs, provider: string, model: string): CutoffEntry | undefined {
  return (
    c.entries.find((e) => e.provider === provider && e.model === model) ??
    c.entries.find((e) => e.provider === undefined && e.model === model)
  );
}

/** The first instant after the cutoff (end of its month or day, UTC), in ms since the epoch. */
export function cutoffEnd(cutoff: string): number {
  const [y, m, d] = cutoff.split('-').map(Number);
  return d === undefined ? Date.UTC(y, m, 1) : Date.UTC(y, m - 1, d + 1);
}

/** Was a task merged at mergedAt possibly seen in training by a model with this cutoff? */
export function mergedBeforeCutoff(mergedAt: string, cutoff: string): boolean {
  return Date.parse(mergedAt) < cutoffEnd(cutoff);
}
