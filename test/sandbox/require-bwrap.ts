// Sandbox tests need a working bubblewrap. Locally they are skipped without one; in CI (CI set)
// a missing or broken bwrap fails the run loudly instead: .ci/run installs it.
import { execFileSync } from 'node:child_process';

function bwrapWorks(): string | undefined {
  try {
    execFileSync(
      'bwrap',
      [
        '--unshare-all',
        '--cap-drop',
        'ALL',
        '--ro-bind',
        '/',
        '/',
        '--',
        '/bin/sh',
        '-c',
        'exit 0',
      ],
      { stdio: 'pipe' },
    );
    return undefined;
  } catch (e) {
    const err = e as { stderr?: Buffer; message: string };
    return (err.stderr?.toString() || err.message).trim();
  }
}

export const BWRAP_PROBLEM = bwrapWorks();

if (BWRAP_PROBLEM && process.env.CI)
  throw new Error(`CI: bubblewrap is required for the sandbox tests: ${BWRAP_PROBLEM}`);

/** True when the bwrap tests must be skipped (never in CI: see above). */
export const noBwrap = BWRAP_PROBLEM !== undefined;
