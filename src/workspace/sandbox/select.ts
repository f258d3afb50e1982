// Choosing the sandbox for a run: `bwrap` must work or the run does not start; `auto` takes
// bwrap when a real sandboxed command succeeds on this machine, else none (with a warning).
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../../util/errors.js';
import { run } from '../../util/process.js';
import { type BwrapOptions, bwrapDriver } from './bwrap.js';
import { findPrlimit } from './limits.js';
import { NONE_WARNING, noneDriver } from './none.js';
import type { SandboxDriver, SandboxMode } from './types.js';

export { NONE_WARNING } from './none.js';
export type { SandboxDriver, SandboxKind, SandboxMode } from './types.js';
export { SANDBOX_MODES } from './types.js';

function which(name: string): string | null {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** Runs `sh -c 'echo ok'` through a real session; resolves to why it failed, or undefined. */
export async function probe(driver: SandboxDriver): Promise<string | undefined> {
  const dir = mkdtempSync(join(tmpdir(), 'nb-probe-'));
  const ws = join(dir, 'ws');
  const home = join(dir, 'home');
  mkdirSync(ws);
  mkdirSync(home);
  const session = await driver.open({ workspace: ws, home, tag: randomUUID() });
  try {
    const w = session.wrap('/bin/sh', ['-c', 'echo ok']);
    const r = await run(w.command, w.args, { cwd: ws, timeoutMs: 20_000 });
    if (r.exitCode === 0 && r.stdout.trim() === 'ok') return undefined;
    return (r.stderr.trim() || `exit ${r.exitCode}`).split('\n')[0];
  } catch (e) {
    return (e as Error).message;
  } finally {
    await session.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface SelectOptions extends Omit<BwrapOptions, 'bwrapPath' | 'prlimitPath'> {
  /** Where the warning for `none` goes (stderr of the CLI). */
  warn?: (line: string) => void;
}

export async function selectSandbox(mode: SandboxMode, o: SelectOptions): Promise<SandboxDriver> {
  if (mode === 'none') {
    o.warn?.(`WARNING: ${NONE_WARNING}`);
    return noneDriver('requested with --sandbox none');
  }
  const bwrapPath = which('bwrap');
  let why: string | undefined = 'bwrap (bubblewrap) is not installed';
  let driver: SandboxDriver | undefined;
  if (bwrapPath) {
    driver = bwrapDriver({ ...o, bwrapPath, prlimitPath: findPrlimit() });
    why = await probe(driver);
  }
  if (driver && !why) return driver;
  if (mode === 'bwrap')
    throw new UserError(
      'NO_SANDBOX',
      `--sandbox bwrap: ${why}; install bubblewrap (apt-get install bubblewrap) and allow unprivileged user namespaces, or pass --sandbox none`,
    );
  o.warn?.(`WARNING: --sandbox auto: bwrap unusable (${why}); ${NONE_WARNING}`);
  return noneDriver(`auto: bwrap unusable (${why})`);
}
