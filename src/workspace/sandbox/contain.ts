// Keeping an unsandboxed agent from outliving NanoBench. bwrap has --die-with-parent and its own
// pid namespace; without it every command is launched as
//   setpriv --pdeathsig KILL -- unshare --pid --fork --kill-child [--user --map-current-user] \
//     -- /bin/sh -c '"$@"; exit $?' nb-init COMMAND ARGS...
// setpriv makes unshare die with us (a SIGKILL of NanoBench included), --kill-child makes the
// namespace's init die with unshare, and when a pid namespace's init dies the kernel kills every
// process in it: background children, setsid'd daemons, processes that wiped their environment.
// A non-root user needs a user namespace to make a pid namespace. Where namespaces cannot be
// made, pdeathsig alone still takes the command itself, and the environment tags
// (NANOBENCH_PROCESS_TAG, NANOBENCH_RUN_ID, NANOBENCH_EXECUTION) let killStragglers and
// killRunLeftovers find the rest.
//
// The init is a shell that runs the command as its child and exits with its status: a command
// run as pid 1 would ignore every signal it has no handler for (a plain shell agent would
// survive the SIGTERM of a timeout, and even its own `kill $$`). The init itself has no handler,
// so as pid 1 it ignores the group's SIGTERM: the command gets it exactly once (Nanocoder shuts
// down cleanly on one, and dies on a second). A command killed by a signal exits 128+n, as
// under bwrap.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { EXECUTION_VAR, thisExecution } from '../../util/execution.js';
import { RUN_ID_VAR, TAG_VAR } from '../../util/process-group.js';
import { which } from '../../util/which.js';
import type { Containment } from './types.js';

export const INIT_SCRIPT = '"$@"; exit $?';

let envPath: string | undefined;

/**
 * `env NAME=VALUE...`: the tags every process of a session starts with, whoever launches it:
 * the session's, the run's and the execution's (which NanoBench process started it).
 */
export function tagPrefix(tag: string, runId?: string): string[] {
  envPath ??= existsSync('/usr/bin/env') ? '/usr/bin/env' : (which('env') ?? 'env');
  return [
    envPath,
    `${TAG_VAR}=${tag}`,
    ...(runId ? [`${RUN_ID_VAR}=${runId}`] : []),
    `${EXECUTION_VAR}=${thisExecution()}`,
  ];
}

export interface Contain {
  containment: Containment;
  /** Put before the command's argv. */
  prefix: string[];
  /** Why a weaker containment was taken (for the run's note and the session report). */
  why?: string;
}

/** The candidates, strongest first, for this user on this machine. */
export function containCandidates(uid = process.getuid?.() ?? 0): Contain[] {
  const setpriv = which('setpriv');
  const unshare = which('unshare');
  const out: Contain[] = [];
  const missing = [!setpriv && 'setpriv', !unshare && 'unshare'].filter(Boolean).join(' and ');
  if (setpriv && unshare) {
    const ns = [unshare, '--pid', '--fork', '--kill-child'];
    const init = ['--', '/bin/sh', '-c', INIT_SCRIPT, 'nb-init'];
    const pdeath = [setpriv, '--pdeathsig', 'KILL', '--'];
    if (uid === 0) out.push({ containment: 'pid-namespace', prefix: [...pdeath, ...ns, ...init] });
    // --map-current-user keeps the agent's identity; older util-linux only has --map-root-user.
    else
      for (const map of ['--map-current-user', '--map-root-user'])
        out.push({
          containment: 'pid-namespace',
          prefix: [...pdeath, ...ns, '--user', map, ...init],
        });
  }
  if (setpriv)
    out.push({
      containment: 'pdeathsig',
      prefix: [setpriv, '--pdeathsig', 'KILL', '--'],
      ...(missing && { why: `${missing} not found` }),
    });
  out.push({
    containment: 'tag-sweep',
    prefix: [],
    ...(missing && { why: `${missing} not found` }),
  });
  return out;
}

/** Whether `prefix + sh -c 'echo ok'` runs here; the reason when it does not. */
export function tryPrefix(prefix: string[]): string | undefined {
  if (prefix.length === 0) return undefined;
  const r = spawnSync(prefix[0], [...prefix.slice(1), '/bin/sh', '-c', 'echo ok'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 10_000,
  });
  if (r.status === 0 && r.stdout.trim() === 'ok') return undefined;
  return (r.stderr?.trim() || r.error?.message || `exit ${r.status}`).split('\n')[0];
}

let detected: Contain | undefined;

/** The strongest containment that really works on this machine for this user (probed once). */
export function detectContainment(): Contain {
  if (detected) return detected;
  const failed: string[] = [];
  for (const c of containCandidates()) {
    const why = tryPrefix(c.prefix);
    if (why === undefined) {
      const whyNot = [...failed, c.why].filter(Boolean).join('; ');
      detected = { ...c, ...(whyNot && { why: whyNot }) };
      return detected;
    }
    failed.push(`${c.containment} failed (${why})`);
  }
  // Unreachable: the last candidate launches the command as it is.
  detected = { containment: 'tag-sweep', prefix: [], why: failed.join('; ') };
  return detected;
}

/** Forget the probe (tests that change PATH). */
export function forgetContainment(): void {
  detected = undefined;
}
