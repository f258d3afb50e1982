// Where a program is, as the shell finds it.
import { execFileSync } from 'node:child_process';

/** Absolute path of a program on PATH (or in the sbin directories, where pivot_root lives). */
export function which(name: string): string | null {
  try {
    const p = execFileSync('/bin/sh', ['-c', `PATH="$PATH:/usr/sbin:/sbin"; command -v ${name}`], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return p.startsWith('/') ? p : null;
  } catch {
    return null;
  }
}
