import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The NanoBench package directory (works from src/ under vitest and from dist/). */
export const PACKAGE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
