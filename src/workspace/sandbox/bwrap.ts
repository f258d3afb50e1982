// The bubblewrap driver. Every process of a session sees: its workspace read-write at its real
// path, HOME and the trial's scratch read-write, a private /tmp, the toolchain read-only, and
// nothing else of the host (no NanoBench results, caches or dataset: no golden patches). All
// namespaces are unshared (network included), capabilities are dropped (root in the sandbox
// could otherwise remount the read-only toolchain read-write), and the sandbox dies with us.
//
// The root of the sandbox is an empty host directory (the "trap", a fresh one per command):
// bwrap builds its mount points there, and whatever the agent writes outside its allowed
// directories lands there too, where the integrity audit can see it after the session.
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { FORWARDER_SOURCE, type HostBridge, loopbackTarget, startHostBridge } from './bridge.js';
import { detectContainment, tagPrefix } from './contain.js';
import { prlimitArgs } from './limits.js';
import { isInside, type Toolchain, toolchain } from './toolchain.js';
import type { SandboxDriver, SandboxSession, SessionOptions, SessionReport } from './types.js';

/** Where the session's own files (forwarder, endpoint socket) appear inside the sandbox. */
export const RUN_DIR = '/run/nanobench';
const MAX_REPORTED = 20;

export interface BwrapOptions {
  bwrapPath: string;
  /** prlimit binary; without it no resource limits are applied (recorded in the report). */
  prlimitPath: string | null;
  /** Never visible inside (dataset directories, NanoBench's package, results root, cache). */
  protectedPaths: string[];
  /** PATH the toolchain is derived from (default: ours). */
  envPath?: string;
  /** Node that runs the in-sandbox forwarder (default: the one running NanoBench). */
  nodePath?: string;
}

export interface MountPlan {
  toolchain: Toolchain;
  /** Extra read-only paths (the agent's runtime and package, the forwarder's node). */
  readOnly: string[];
  writable: string[];
  workspace: string;
  home: string;
  /** Empty host directory that becomes the sandbox's root (set per command). */
  trap: string;
  emptyFile: string;
  /** Host directory mounted read-only at RUN_DIR (forwarder + socket), when bridging. */
  runDir?: string;
}

/** Mount destinations in order, for building the skeleton the trap is expected to hold. */
function destinations(p: MountPlan): string[] {
  const t = p.toolchain;
  return [
    ...t.symlinks.map(([, d]) => d),
    ...t.readOnly,
    ...t.hideFiles,
    ...t.hideDirs,
    ...p.readOnly,
    '/proc',
    '/dev',
    '/tmp',
    ...p.writable,
    p.home,
    p.workspace,
    ...(p.runDir ? [RUN_DIR] : []),
  ];
}

export function bwrapArgs(p: MountPlan): string[] {
  const t = p.toolchain;
  const a = ['--unshare-all', '--cap-drop', 'ALL', '--die-with-parent', '--new-session'];
  a.push('--bind', p.trap, '/');
  // The private /tmp goes first: a bind made before it would vanish under it, and the
  // checkout (Nanocoder, a command agent's script) may well live under the host's /tmp.
  a.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  for (const [target, dest] of t.symlinks) a.push('--symlink', target, dest);
  for (const d of t.readOnly) a.push('--ro-bind', d, d);
  for (const f of t.hideFiles) a.push('--ro-bind', p.emptyFile, f);
  for (const d of t.hideDirs) a.push('--tmpfs', d);
  for (const r of p.readOnly) a.push('--ro-bind', r, r);
  for (const w of [...p.writable, p.home, p.workspace]) a.push('--bind', w, w);
  if (p.runDir) a.push('--ro-bind', p.runDir, RUN_DIR);
  a.push('--setenv', 'HOME', p.home, '--setenv', 'TMPDIR', '/tmp', '--chdir', p.workspace);
  return a;
}

/** Entries of the trap that bwrap did not create: writes outside the allowed directories. */
export function writesOutside(trap: string, dests: string[]): string[] {
  const expected = new Set<string>();
  for (const d of dests) for (let x = d; x !== '/'; x = dirname(x)) expected.add(x);
  const found: string[] = [];
  const walk = (rel: string) => {
    let names: string[];
    try {
      names = readdirSync(join(trap, rel));
    } catch {
      return;
    }
    for (const name of names.sort()) {
      const inside = `${rel}/${name}`;
      if (!expected.has(inside)) {
        found.push(inside);
        continue;
      }
      // lstat: a link the agent left must not lead this walk out of the trap.
      const st = lstatSync(join(trap, inside), { throwIfNoEntry: false });
      if (st?.isDirectory()) walk(inside);
      else if (st?.isFile() && st.size > 0) found.push(inside);
    }
  };
  walk('');
  return found;
}

const covered = (p: string, t: Toolchain) =>
  t.readOnly.some((r) => isInside(p, r)) && !t.hideDirs.some((h) => isInside(p, h));

class BwrapSession implements SandboxSession {
  readonly kind = 'bwrap' as const;
  private closing?: Promise<SessionReport>;
  /** Extra read-only paths of every wrap() so far (their mount points are in the traps). */
  private readonly extra = new Set<string>();
  private readonly given = new Set<string>();
  private readonly traps: string[] = [];
  constructor(
    readonly tag: string,
    private readonly runId: string | undefined,
    private readonly o: BwrapOptions,
    private readonly dir: string,
    private readonly plan: MountPlan,
    private readonly bridge?: { host: string; port: number; server: HostBridge },
  ) {}

  wrap(command: string, args: string[], readOnly: string[] = []) {
    for (const p of readOnly) this.given.add(p);
    const t = this.plan.toolchain;
    const node = this.o.nodePath ?? process.execPath;
    const extra = [...readOnly, ...(this.bridge ? [node] : [])].filter((p) => !covered(p, t));
    for (const p of extra) this.extra.add(p);
    const trap = join(this.dir, `root-${this.traps.length}`);
    mkdirSync(trap);
    this.traps.push(trap);
    const plan = { ...this.plan, trap, readOnly: [...new Set(extra)] };
    const inner = this.bridge
      ? [node, `${RUN_DIR}/bridge.mjs`, this.bridge.host, String(this.bridge.port)].concat([
          `${RUN_DIR}/endpoint.sock`,
          '--',
          command,
          ...args,
        ])
      : [command, ...args];
    const bwrap = [this.o.bwrapPath, ...bwrapArgs(plan), '--', ...inner];
    const limited = this.o.prlimitPath ? [this.o.prlimitPath, ...prlimitArgs(), '--'] : [];
    // --die-with-parent has a window: bwrap's pid 1 binds itself to its parent only after the
    // command started, and a SIGKILL of NanoBench in that window (seen on a loaded machine)
    // leaves the whole sandbox running. Our own pid namespace around bwrap closes it.
    const contain = detectContainment().prefix;
    const argv = [...tagPrefix(this.tag, this.runId), ...limited, ...contain, ...bwrap];
    return { command: argv[0], args: argv.slice(1) };
  }

  close(): Promise<SessionReport> {
    this.closing ??= (async () => {
      await this.bridge?.server.close();
      const dests = destinations({ ...this.plan, readOnly: [...this.extra] });
      const outside = [...new Set(this.traps.flatMap((t) => writesOutside(t, dests)))];
      await rm(this.dir, { recursive: true, force: true });
      return {
        kind: this.kind,
        writesOutside:
          outside.length > MAX_REPORTED
            ? [...outside.slice(0, MAX_REPORTED), `... ${outside.length - MAX_REPORTED} more`]
            : outside,
        endpointConnections: this.bridge?.server.connections() ?? 0,
        limits: this.o.prlimitPath ? prlimitArgs() : [],
        readOnly: [...this.given],
        // bwrap's pid namespace, inside ours (see wrap()).
        containment: 'pid-namespace' as const,
      };
    })();
    return this.closing;
  }
}

export function bwrapDriver(o: BwrapOptions): SandboxDriver {
  const tools = toolchain(o.envPath ?? process.env.PATH, o.protectedPaths);
  return {
    kind: 'bwrap',
    async open(s: SessionOptions): Promise<SandboxSession> {
      const dir = mkdtempSync(join(tmpdir(), 'nb-sbx-'));
      const emptyFile = join(dir, 'empty');
      writeFileSync(emptyFile, '');
      const plan: MountPlan = {
        toolchain: tools,
        readOnly: [],
        writable: s.writable ?? [],
        workspace: s.workspace,
        home: s.home,
        trap: '',
        emptyFile,
      };
      if (!s.endpoint) return new BwrapSession(s.tag, s.runId, o, dir, plan);
      try {
        const target = loopbackTarget(s.endpoint.baseUrl);
        const runDir = join(dir, 'run');
        mkdirSync(runDir);
        writeFileSync(join(runDir, 'bridge.mjs'), FORWARDER_SOURCE);
        const server = await startHostBridge(join(runDir, 'endpoint.sock'), target);
        return new BwrapSession(s.tag, s.runId, o, dir, { ...plan, runDir }, { ...target, server });
      } catch (e) {
        rmSync(dir, { recursive: true, force: true });
        throw e;
      }
    },
  };
}
