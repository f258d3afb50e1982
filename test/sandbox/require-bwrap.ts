// Sandbox tests need a working bubblewrap. Locally they are skipped without one; in CI (CI or
// NANOBENCH_REQUIRE_BWRAP set, as .ci/run does) a missing or broken bwrap fails loudly instead.
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
