// Sandbox tests need a working bubblewrap. Skipped without one, unless CI or
// NANOBENCH_REQUIRE_BWRAP is set (npm test sets it wherever bwrap works, and refuses to run as
// root or in CI without it): then a missing or broken bwrap fails loudly instead.
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

if (BWRAP_PROBLEM && (process.env.CI || process.env.NANOBENCH_REQUIRE_BWRAP))
  throw new Error(`CI: bubblewrap is required for the sandbox tests: ${BWRAP_PROBLEM}`);

/** True when the bwrap tests must be skipped (never in CI: see above). */
export const noBwrap = BWRAP_PROBLEM !== undefined;
