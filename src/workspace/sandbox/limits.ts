// Resource limits for every sandboxed process, set with prlimit(1) on the sandbox launcher and
// inherited by everything it starts. Wall time is enforced by the caller (agent/verifier timeouts).
//
// Memory is RLIMIT_DATA (private writable memory per process), not RLIMIT_AS: V8 reserves
// ~10 GiB of address space per WebAssembly memory (Nanocoder loads tiktoken's wasm), so any
// useful address-space cap kills Node; RLIMIT_DATA leaves reservations alone and still stops a
// runaway allocation. Processes are RLIMIT_NPROC, counted in the sandbox's own user namespace;
// the kernel does not apply it to uid 0, so when NanoBench runs as root the pid namespace (which
// dies with the trial) and the wall-time limit are what contain a fork bomb.
import { execFileSync } from 'node:child_process';

export const LIMITS = {
  /** Processes (threads count too) of the sandbox's user. */
  nproc: 1024,
  /** Bytes of private writable memory per process. */
  data: 4 * 1024 ** 3,
  /** Largest file a process may write, in bytes. */
  fsize: 2 * 1024 ** 3,
  core: 0,
} as const;

export function prlimitArgs(): string[] {
  return [
    `--nproc=${LIMITS.nproc}`,
    `--data=${LIMITS.data}`,
    `--fsize=${LIMITS.fsize}`,
    `--core=${LIMITS.core}`,
  ];
}

let found: string | null | undefined;

/** Absolute path of prlimit (util-linux), or null when the machine has none. */
export function findPrlimit(): string | null {
  if (found === undefined) {
    try {
      found = execFileSync('sh', ['-c', 'command -v prlimit'], { encoding: 'utf8' }).trim() || null;
    } catch {
      found = null;
    }
  }
  return found;
}
