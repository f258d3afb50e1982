// Writing a file the user named (--out, --key, --write DIR): a bad path is one line, not a trace.
import { writeFileSync } from 'node:fs';
import { UserError } from './errors.js';

const REASONS: Record<string, string> = {
  ENOENT: 'no such directory',
  ENOTDIR: 'a parent is not a directory',
  // From mkdir -p of the parents: one of them exists as a file.
  EEXIST: 'a parent is not a directory',
  EISDIR: 'it is a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
};

/** Why a file could not be written, in a few words. */
export function writeFailure(e: unknown): string {
  const code = (e as NodeJS.ErrnoException)?.code;
  return (code && REASONS[code]) ?? (e as Error).message;
}

export function writeUserFile(file: string, text: string, what: string, mode?: number): void {
  try {
    writeFileSync(file, text, mode === undefined ? undefined : { mode });
  } catch (e) {
    throw new UserError('CANNOT_WRITE', `${file}: cannot write the ${what} (${writeFailure(e)})`);
  }
}
