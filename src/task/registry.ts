// Datasets by name. A dataset argument is a path (a dataset directory or a task file); when no
// such path exists, a bare name is looked up among the datasets shipped in the package
// (<package>/datasets/<name>), so `nanobench run nanobench-v1` works from any directory.
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { UserError } from '../util/errors.js';
import { PACKAGE_ROOT } from '../util/package-root.js';

export const SHIPPED_DATASETS_DIR = join(PACKAGE_ROOT, 'datasets');

export function shippedDatasets(): string[] {
  if (!existsSync(SHIPPED_DATASETS_DIR)) return [];
  return readdirSync(SHIPPED_DATASETS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort();
}

/**
 * The absolute path a dataset argument names: an existing path first, then a shipped dataset.
 * DATASET@VERSION names a released version kept in DATASET/archive/VERSION.
 */
export function resolveDatasetArg(arg: string): string {
  const at = arg.lastIndexOf('@');
  if (at > 0 && !existsSync(resolve(arg))) {
    const dir = resolveDatasetArg(arg.slice(0, at));
    const version = arg.slice(at + 1);
    const archived = join(dir, 'archive', version);
    if (existsSync(join(archived, 'dataset.json'))) return archived;
    const versions = existsSync(join(dir, 'archive'))
      ? readdirSync(join(dir, 'archive'), { withFileTypes: true })
          .filter(
            (d) => d.isDirectory() && existsSync(join(dir, 'archive', d.name, 'dataset.json')),
          )
          .map((d) => d.name)
          .sort()
      : [];
    throw new UserError(
      'DATASET_NOT_FOUND',
      `${arg}: ${dir} has no released version ${version} in archive/ (${versions.length ? `released: ${versions.join(', ')}` : 'nothing released yet: nanobench dataset release'})`,
    );
  }
  const asPath = resolve(arg);
  if (existsSync(asPath)) return asPath;
  if (/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(arg) && shippedDatasets().includes(arg))
    return join(SHIPPED_DATASETS_DIR, arg);
  const shipped = shippedDatasets();
  throw new UserError(
    'DATASET_NOT_FOUND',
    `${asPath}: no such dataset directory or task file${shipped.length ? `, and no shipped dataset named "${arg}" (shipped: ${shipped.join(', ')})` : ''}`,
  );
}
