// Sandbox tests need a working bubblewrap. Skipped without one, unless CI or
// NANOBENCH_REQUIRE_BWRAP is set (npm test sets it wherever bwrap works, and refuses to run as
// root or in CI without it): then a missing or broken bwrap fails loudly instead.
import { execFileSync } from 'node:child_process';
import { toolchain } from '../../src/workspace/sandbox/toolchain.js';

/**
 * The probe binds what the sandbox itself binds (the system directories), not `/`: a recursive
 * bind of `/` also rebinds every mount below it, and one that vanishes meanwhile (a container
 * test's overlay, a workspace unmounted by a test running alongside) fails the probe, not bwrap.
 */
function probeArgs(): string[] {
  const { symlinks, readOnly } = toolchain(undefined, []);
  return [
    '--unshare-all',
    '--cap-drop',
    'ALL',
    ...readOnly.flatMap((d) => ['--ro-bind', d, d]),
    ...symlinks.flatMap(([target, dest]) => ['--symlink', target, dest]),
    '--',
    '/bin/sh',
    '-c',
    'exit 0',
  ];
}

function bwrapWorks(): string | undefined {
  try {
    execFileSync('bwrap', probeArgs(), { stdio: 'pipe' });
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
