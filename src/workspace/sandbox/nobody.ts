// "none as nobody": what `--sandbox none` (or auto's fallback) becomes when NanoBench runs as
// root and bwrap cannot be used. Still no sandbox for the network, but not for identity or
// visibility: every command runs as the unprivileged user `nobody`, with no capabilities and
// no_new_privs, in its own mount, pid, IPC and UTS namespaces, and sees the same allow-list view
// as under bwrap (toolchain read-only, its workspace/HOME/scratch read-write at their real paths,
// a private /tmp, a minimal /dev, its own /proc) and nothing else: no dataset, no results
// database, no source cache, and no other checkout or mirror lying anywhere on the disk. A
// deny-list (an empty tmpfs over each protected path) was not enough: the disk holds other
// clones of the same repositories that no list names (other checkouts' example mirrors, other
// results roots), and a filesystem-wide search finds them.
//
// The view is built by a shell script run as root inside the new namespaces (util-linux mount,
// pivot_root), which then drops to nobody with setpriv and runs the command under a small init
// (contain.ts). The session's directories are chowned to nobody right before each command and
// back to NanoBench's user when the session closes, so the host side (git, hardening, diff) works
// on files it owns as before; the chown back also clears any setuid bit the agent set.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { InfraError } from '../../util/errors.js';
import { walk } from '../../util/fs-tree.js';
import { which } from '../../util/which.js';
import { mountTable } from '../layers.js';
import { INIT_SCRIPT, tagPrefix } from './contain.js';
import { prlimitArgs } from './limits.js';
import { isInside, type Toolchain, toolchain } from './toolchain.js';
import type { SandboxDriver, SandboxSession, SessionOptions, SessionReport } from './types.js';

export const NOBODY_WARNING =
  'sandbox "none-as-nobody": no bwrap, so agents run as the user nobody in their own mount and pid namespaces (they cannot see the dataset, the results or the caches) but WITH the network of this machine';

export interface NobodyOptions {
  /** Never visible inside, even under a toolchain directory (dataset, package, results, cache). */
  protectedPaths: string[];
  prlimitPath: string | null;
  /** PATH the toolchain is derived from (default: ours). */
  envPath?: string;
  /** Who the commands run as (default: nobody from /etc/passwd). */
  user?: { uid: number; gid: number };
}

/** `nobody`'s uid and gid from /etc/passwd (65534 where it has no such line). */
export function nobodyUser(): { uid: number; gid: number } {
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('nobody:'));
    const [, , uid, gid] = line?.split(':') ?? [];
    if (uid && gid) return { uid: Number(uid), gid: Number(gid) };
  } catch {}
  return { uid: 65534, gid: 65534 };
}

const TOOLS = ['setpriv', 'unshare', 'mount', 'umount', 'pivot_root', 'chown', 'mkdir', 'ln'];

/** Shell single-quoting. */
const q = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** Mount points strictly inside `dir` on the host (they come along with a recursive bind). */
export function submountsUnder(dir: string): string[] {
  return mountTable()
    .map((m) => m.point)
    .filter((m) => m !== dir && isInside(m, dir));
}

interface Plan {
  toolchain: Toolchain;
  /** Extra read-only paths of this command (the agent's runtime, package or script). */
  readOnly: string[];
  writable: string[];
  home: string;
  workspace: string;
  /** The workspace is an overlay whose lower layer the user owns: it is not chowned whole. */
  workspaceOwned?: boolean;
  /** Host directory the new root (a tmpfs) is mounted on, inside the namespace only. */
  root: string;
  emptyFile: string;
  user: { uid: number; gid: number };
  tools: Record<string, string>;
}

interface MountOp {
  /** Where it lands inside the view. */
  dest: string;
  /** A file mount point (created empty) rather than a directory. */
  file?: boolean;
  /** Whether its mount point already exists where it lands (e.g. inside a read-only bind). */
  exists?: boolean;
  lines: string[];
}

/**
 * Mount points are made in batches (one `mkdir -p` per covering mount instead of one per mount
 * point: every exec counts, this runs before each command): right after the mount they land in.
 */
function emit(ops: MountOp[], mkdir: string, at: (p: string) => string): string[] {
  const container = ops.map((op, i) => {
    for (let j = i - 1; j >= 0; j--)
      if (op.dest !== ops[j].dest && isInside(op.dest, ops[j].dest)) return j;
    return -1;
  });
  const points = (c: number) => {
    const mine = ops.filter((op, i) => container[i] === c && !op.exists);
    const dirs = [...new Set(mine.map((op) => (op.file ? dirname(op.dest) : op.dest)))].filter(
      (d) => c < 0 || d !== ops[c].dest,
    );
    return [
      ...(dirs.length ? [`${mkdir} -p ${dirs.map(at).join(' ')}`] : []),
      ...mine.filter((op) => op.file).map((op) => `: > ${at(op.dest)}`),
    ];
  };
  return [...points(-1), ...ops.flatMap((op, i) => [...op.lines, ...points(i)])];
}

/** The system symlinks (/bin -> usr/bin...): those named like their target's end in one exec. */
function symlinkLines(links: [string, string][], ln: string, at: (p: string) => string): string[] {
  const same = links.filter(
    ([target, dest]) => dirname(dest) === '/' && basename(target) === basename(dest),
  );
  const rest = links.filter((l) => !same.includes(l));
  return [
    ...(same.length ? [`${ln} -s ${same.map(([target]) => q(target)).join(' ')} "$R/"`] : []),
    ...rest.map(([target, dest]) => `${ln} -s ${q(target)} ${at(dest)}`),
  ];
}

/** The setup script: builds the view, chowns the session's directories, drops to the user. */
export function setupScript(p: Plan): string {
  const t = p.tools;
  const at = (path: string) => `"$R"${q(path)}`;
  const ops: MountOp[] = [
    // Where pivot_root puts the host's root (then detached).
    { dest: '/.nb-old', lines: [] },
    // The private /tmp first: the workspace or the agent's runtime may live under the host's.
    { dest: '/tmp', lines: [`${t.mount} -t tmpfs -o mode=1777,nosuid,nodev nb-tmp ${at('/tmp')}`] },
  ];
  const roBind = (src: string) => {
    const file = !statSync(src).isDirectory();
    const lines = [`${t.mount} --rbind -o ro,nosuid ${q(src)} ${at(src)}`];
    // util-linux 2.38 makes only the top mount read-only: each submount (e.g. Docker's
    // /etc/hosts) is remounted read-only by hand.
    for (const m of file ? [] : submountsUnder(src))
      lines.push(`${t.mount} -o remount,bind,ro,nosuid ${at(m)}`);
    ops.push({ dest: src, file, lines });
  };
  for (const d of p.toolchain.readOnly) roBind(d);
  for (const f of p.toolchain.hideFiles)
    ops.push({
      dest: f,
      exists: true,
      lines: [`${t.mount} --bind -o ro ${q(p.emptyFile)} ${at(f)}`],
    });
  for (const d of p.toolchain.hideDirs)
    ops.push({
      dest: d,
      exists: true,
      lines: [`${t.mount} -t tmpfs -o mode=0755,nosuid,nodev nb-hidden ${at(d)}`],
    });
  for (const r of p.readOnly) roBind(r);
  ops.push({
    dest: '/proc',
    lines: [`${t.mount} -t proc -o nosuid,nodev,noexec proc ${at('/proc')}`],
  });
  const dev = ['null', 'zero', 'full', 'random', 'urandom', 'tty'];
  ops.push({
    dest: '/dev',
    lines: [
      `${t.mount} -t tmpfs -o mode=0755,nosuid,noexec nb-dev ${at('/dev')}`,
      `${t.ln} -s /proc/self/fd/0 ${at('/dev/stdin')}`,
      `${t.ln} -s /proc/self/fd/1 ${at('/dev/stdout')}`,
      `${t.ln} -s /proc/self/fd/2 ${at('/dev/stderr')}`,
      // The names match the targets' last parts: one exec makes both.
      `${t.ln} -s pts/ptmx /proc/self/fd ${at('/dev/')}`,
    ],
  });
  for (const d of dev)
    ops.push({
      dest: `/dev/${d}`,
      file: true,
      lines: [`${t.mount} --bind /dev/${d} ${at(`/dev/${d}`)}`],
    });
  ops.push(
    {
      dest: '/dev/pts',
      lines: [
        `${t.mount} -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts ${at('/dev/pts')}`,
      ],
    },
    {
      dest: '/dev/shm',
      lines: [`${t.mount} -t tmpfs -o mode=1777,nosuid,nodev nb-shm ${at('/dev/shm')}`],
    },
  );
  const own = [...p.writable, p.home, p.workspace];
  for (const w of own)
    ops.push({ dest: w, lines: [`${t.mount} --bind -o nosuid,nodev ${q(w)} ${at(w)}`] });
  const chowned = p.workspaceOwned ? own.filter((w) => w !== p.workspace) : own;

  const { uid, gid } = p.user;
  const lines = [
    // Any failure is the harness's, not the agent's: say so, with the forwarder's exit code.
    `trap 'echo "nanobench-sandbox: setting up the none-as-nobody view failed" >&2; exit 125' EXIT`,
    'set -e',
    `R=${q(p.root)}`,
    `${t.mount} -t tmpfs -o mode=0755,nosuid,nodev nb-root "$R"`,
    ...symlinkLines(p.toolchain.symlinks, t.ln, at),
    ...emit(ops, t.mkdir, at),
    // -P: never follow a symlink the agent left (it could point at /etc); -h: chown the link itself.
    `${t.chown} -R -P -h ${uid}:${gid} ${chowned.map(q).join(' ')}`,
    `${t.pivot_root} "$R" "$R/.nb-old"`,
    `${t.umount} -l /.nb-old`,
    'rmdir /.nb-old 2>/dev/null || true',
    `cd ${q(p.workspace)}`,
    `export HOME=${q(p.home)} TMPDIR=/tmp`,
    'trap - EXIT',
    // Changing the uid clears the parent-death signal; --pdeathsig sets it again after.
    [
      `exec ${t.setpriv} --reuid=${uid} --regid=${gid} --clear-groups`,
      '--inh-caps=-all --bounding-set=-all --no-new-privs --pdeathsig KILL',
      `-- /bin/sh -c ${q(INIT_SCRIPT)} nb-init "$@"`,
    ].join(' '),
  ];
  return lines.join('\n');
}

/** Workspace entries of an overlay's upper layer, as the workspace shows them (whiteouts are not). */
function upperEntries(ws: string, upper: string): string[] {
  const out = [ws];
  for (const e of walk(upper)) {
    const abs = join(ws, e.rel);
    if (lstatSync(abs, { throwIfNoEntry: false })) out.push(abs);
  }
  return out;
}

/**
 * Before each command: what NanoBench wrote on an overlay workspace (restored files, the test
 * patch) becomes the user's. Only the upper layer's entries: a chown of the whole workspace would
 * copy every file of the snapshot up. Never through a link (lchown).
 */
function giveUpperTo(ws: string, upper: string, u: { uid: number; gid: number }): void {
  for (const abs of upperEntries(ws, upper)) {
    const st = lstatSync(abs);
    if (st.uid !== u.uid || st.gid !== u.gid) lchownSync(abs, u.uid, u.gid);
  }
}

/** After the session: no setuid or setgid file the agent made survives it. */
function clearSetId(ws: string, upper: string): void {
  for (const abs of upperEntries(ws, upper)) {
    const st = lstatSync(abs);
    if (st.isFile() && st.mode & 0o6000) chmodSync(abs, st.mode & 0o1777);
  }
}

const covered = (p: string, t: Toolchain) =>
  t.readOnly.some((r) => isInside(p, r)) && !t.hideDirs.some((h) => isInside(p, h));

function realDir(p: string, what: string): void {
  const st = lstatSync(p, { throwIfNoEntry: false });
  if (!st?.isDirectory())
    throw new InfraError('sandbox', `${what} ${p} is not a directory (a symlink?)`);
}

class NobodySession implements SandboxSession {
  readonly kind = 'none-as-nobody' as const;
  private closing?: Promise<SessionReport>;
  private readonly given = new Set<string>();
  private commands = 0;
  constructor(
    private readonly s: SessionOptions,
    private readonly o: NobodyOptions,
    private readonly tools: Record<string, string>,
    private readonly tc: Toolchain,
    private readonly dir: string,
  ) {}

  get tag() {
    return this.s.tag;
  }

  wrap(command: string, args: string[], readOnly: string[] = []) {
    for (const p of readOnly) this.given.add(p);
    const s = this.s;
    // Bound and chowned as root: a symlink planted in their place must not redirect either.
    realDir(s.workspace, 'workspace');
    realDir(s.home, 'HOME');
    for (const w of s.writable ?? []) realDir(w, 'writable directory');
    const root = join(this.dir, `root-${this.commands++}`);
    mkdirSync(root);
    const user = this.o.user ?? nobodyUser();
    if (s.workspaceUpper) giveUpperTo(s.workspace, s.workspaceUpper, user);
    const script = setupScript({
      toolchain: this.tc,
      readOnly: [...new Set(readOnly)].filter((p) => !covered(p, this.tc)),
      writable: s.writable ?? [],
      home: s.home,
      workspace: s.workspace,
      workspaceOwned: Boolean(s.workspaceUpper),
      root,
      emptyFile: join(this.dir, 'empty'),
      user,
      tools: this.tools,
    });
    const t = this.tools;
    const argv = [
      ...tagPrefix(s.tag, s.runId),
      ...(this.o.prlimitPath ? [this.o.prlimitPath, ...prlimitArgs(), '--'] : []),
      ...[t.setpriv, '--pdeathsig', 'KILL', '--'],
      ...[t.unshare, '--mount', '--pid', '--ipc', '--uts', '--fork', '--kill-child'],
      ...['--propagation', 'private', '--', '/bin/sh', '-c', script, 'nb-setup'],
      command,
      ...args,
    ];
    return { command: argv[0], args: argv.slice(1) };
  }

  close(): Promise<SessionReport> {
    this.closing ??= (async () => {
      // Every process of the session is gone (each died with its pid namespace): hand the
      // directories back to NanoBench's user, whose git refuses a repository owned by another.
      const s = this.s;
      const uid = process.getuid?.() ?? 0;
      const gid = process.getgid?.() ?? 0;
      // An overlay workspace stays the user's (its lower layer is theirs; git is told to trust
      // it, src/util/git.ts): only setuid bits the agent set on what it wrote are cleared.
      if (s.workspaceUpper) clearSetId(s.workspace, s.workspaceUpper);
      const own = [
        ...(s.writable ?? []),
        s.home,
        ...(s.workspaceUpper ? [] : [s.workspace]),
      ].filter((p) => lstatSync(p, { throwIfNoEntry: false }));
      try {
        if (this.commands > 0 && own.length)
          execFileSync(this.tools.chown, ['-R', '-P', '-h', `${uid}:${gid}`, ...own], {
            stdio: 'pipe',
          });
      } catch (e) {
        const err = e as { stderr?: Buffer; message: string };
        throw new InfraError(
          'sandbox',
          `cannot give ${own.join(', ')} back to uid ${uid}: ${err.stderr?.toString().trim() || err.message}`,
        );
      } finally {
        rmSync(this.dir, { recursive: true, force: true });
      }
      return {
        kind: this.kind,
        // Nothing can be written outside its own directories: the root belongs to root, the
        // binds are read-only and /tmp is private.
        writesOutside: [],
        endpointConnections: 0,
        limits: this.o.prlimitPath ? prlimitArgs() : [],
        readOnly: [...this.given],
        containment: 'pid-namespace' as const,
      };
    })();
    return this.closing;
  }
}

/** Throws when a program the view needs is missing. */
export function nobodyDriver(o: NobodyOptions): SandboxDriver {
  const tools: Record<string, string> = {};
  const missing: string[] = [];
  for (const name of TOOLS) {
    const p = which(name);
    if (p) tools[name] = p;
    else missing.push(name);
  }
  if (missing.length) throw new Error(`${missing.join(', ')} not found (util-linux, coreutils)`);
  const tc = toolchain(o.envPath ?? process.env.PATH, o.protectedPaths);
  return {
    kind: 'none-as-nobody',
    user: o.user ?? nobodyUser(),
    async open(s: SessionOptions): Promise<SandboxSession> {
      const dir = mkdtempSync(join(tmpdir(), 'nb-nobody-'));
      writeFileSync(join(dir, 'empty'), '');
      return new NobodySession(s, o, tools, tc, dir);
    },
  };
}
