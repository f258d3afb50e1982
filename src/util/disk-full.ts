// A full disk (or quota) under the results root: no trial run then can be trusted or stored, so
// the run stops, is marked interrupted and can be resumed once there is space. It is recognised
// by its error codes and, where an error was re-worded on its way up (git's, a suite's), by text.
import { statfsSync } from 'node:fs';

const CODES = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL']);
const TEXT =
  /\bENOSPC\b|\bEDQUOT\b|no space left on device|database or disk is full|disk quota exceeded/i;

export function isDiskFull(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && CODES.has(code)) return true;
  const message = (e as { message?: unknown } | null)?.message;
  return typeof message === 'string' && TEXT.test(message);
}

/** Below this much free space the disk counts as full: a trial there may have failed to write. */
export const FULL_BELOW_BYTES = 1024 * 1024;

/** Whether the file system holding `dir` has (almost) no space left for this user. */
export function diskFullAt(dir: string): boolean {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize < FULL_BELOW_BYTES;
  } catch {
    return false;
  }
}

/** A trial that ran out of disk: it is not stored, and the run stops (src/run/runner.ts). */
export class DiskFullError extends Error {
  constructor(
    readonly dir: string,
    readonly reason: unknown,
  ) {
    super(
      `the disk holding ${dir} is full${reason ? ` (${String((reason as Error)?.message ?? reason).split('\n')[0]})` : ''}`,
    );
    this.name = 'DiskFullError';
  }
}
