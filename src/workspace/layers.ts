// How a trial's workspace is made from the env snapshot. Fastest first:
//   overlay         a kernel overlay mount (root): the snapshot is the read-only lower layer, the
//                   trial writes only to its own upper layer. Milliseconds whatever the size of
//                   node_modules, and the upper layer is exactly what the agent touched.
//   fuse-overlayfs  the same in user space (no root needed where /dev/fuse is usable).
//   reflink         cp -a --reflink=always (btrfs, XFS): a copy that shares the data blocks.
//   copy            cp -a.
// `auto` takes the first that works here and records why it passed over the others. The upper
// and work directories live beside the workspace (`<ws>.layers/`), never inside anything a
// sandbox shows the agent. Mounts are NanoBench's to undo: every trial unmounts its own in its
// teardown, and a resumed run unmounts what a killed execution left (unmountUnder).
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { InfraError } from '../util/errors.js';
import { tryGit } from '../util/git.js';
import { execText } from '../util/process.js';
import { which } from '../util/which.js';

export const PROVISION_MODES = ['auto', 'overlay', 'fuse-overlayfs', 'reflink', 'copy'] as const;
export type ProvisionMode = (typeof PROVISION_MODES)[number];
export type ProvisionKind = Exclude<ProvisionMode, 'auto'>;
// reflink before fuse-overlayfs: a copy that shares blocks behaves exactly like a copy, while
// every file operation through FUSE costs (measured: npm run bench:trial), and fuse-overlayfs
// 1.10 still finds entries of a directory deleted and made again (changes.ts, listedStat).
const ORDER: ProvisionKind[] = ['overlay', 'reflink', 'fuse-overlayfs', 'copy'];

export interface Layers {
  kind: ProvisionKind;
  /** The read-only lower layer, or what the copy was made from. */
  lower: string;
  /** Overlay kinds: the trial's own writable layer. */
  upper?: string;
  /** Modes auto passed over, with the reason (the first attempt of each, in this process). */
  fallback?: string[];
}

export const layersDir = (ws: string) => `${ws}.layers`;

/** Modes that failed in this process, with why: auto does not try them again. */
const unavailable = new Map<ProvisionKind, string>();

const isRoot = () => process.getuid?.() === 0;
let fuseBin: string | undefined;

function errText(e: unknown): string {
  const err = e as { stderr?: Buffer | string; message?: string };
  return (err.stderr?.toString().trim() || err.message || String(e)).split('\n')[0].slice(0, 300);
}

/** Overlay options separate with , and : (and \ escapes): such paths are not given to mount. */
function optionSafe(...paths: string[]): void {
  const bad = paths.find((p) => /[,:\\\n]/.test(p));
  if (bad) throw new Error(`path ${bad} holds a character overlay options cannot carry`);
}

/** The upper layer's root is the workspace root: give it the lower root's mode and owner. */
function makeLayers(lower: string, ws: string): { upper: string; work: string } {
  const dir = layersDir(ws);
  rmSync(dir, { recursive: true, force: true });
  const upper = join(dir, 'upper');
  const work = join(dir, 'work');
  mkdirSync(upper, { recursive: true, mode: 0o700 });
  mkdirSync(work, { mode: 0o700 });
  const st = statSync(lower);
  chmodSync(upper, st.mode & 0o7777);
  if (isRoot()) chownSync(upper, st.uid, st.gid);
  mkdirSync(ws, { recursive: true });
  return { upper, work };
}

async function mountOverlay(
  kind: 'overlay' | 'fuse-overlayfs',
  lower: string,
  ws: string,
): Promise<string> {
  optionSafe(lower, ws);
  const { upper, work } = makeLayers(lower, ws);
  // redirect_dir and metacopy off: every change is a whole entry of the upper layer, so the
  // upper layer alone says what changed (a renamed directory is copied, as Docker's overlay2 does).
  const opts = `lowerdir=${lower},upperdir=${upper},workdir=${work}`;
  try {
    if (kind === 'overlay') {
      const mount = (extra: string) =>
        execText('mount', ['-t', 'overlay', 'nanobench', '-o', `${opts},${extra}`, ws]);
      // volatile: no sync of a layer that is thrown away after the trial (an unmount would
      // otherwise flush it; kernels before 5.10 do not know the option).
      try {
        await mount('redirect_dir=off,metacopy=off,volatile');
      } catch {
        await mount('redirect_dir=off,metacopy=off');
      }
    } else {
      fuseBin ??= which('fuse-overlayfs') ?? '';
      const bin = fuseBin;
      if (!bin) throw new Error('fuse-overlayfs is not installed');
      // allow_other: the sandbox runs the agent as another user (root only; others would need
      // user_allow_other in /etc/fuse.conf). The kernel still checks permissions.
      await execText(bin, ['-o', `${opts}${isRoot() ? ',allow_other' : ''}`, ws]);
    }
  } catch (e) {
    await rm(layersDir(ws), { recursive: true, force: true });
    throw e;
  }
  return upper;
}

async function copyTree(lower: string, ws: string, reflink: boolean): Promise<void> {
  await rm(ws, { recursive: true, force: true });
  mkdirSync(dirname(ws), { recursive: true });
  await execText('cp', ['-a', ...(reflink ? ['--reflink=always'] : []), lower, ws]);
}

/**
 * Make `ws` with `mode` (auto: the first kind that works). `lower` is the snapshot, or per kind
 * the directory to lay under or copy (a lower layer another user owns is only for overlays).
 */
export async function makeWorkspace(
  lower: string | ((kind: ProvisionKind) => string),
  ws: string,
  mode: ProvisionMode,
): Promise<Layers> {
  const lowerFor = typeof lower === 'string' ? () => lower : lower;
  await releaseWorkspace(ws);
  mkdirSync(dirname(ws), { recursive: true });
  const kinds = mode === 'auto' ? ORDER : [mode];
  const fallback: string[] = [];
  for (const kind of kinds) {
    const known = mode === 'auto' ? unavailable.get(kind) : undefined;
    if (known) {
      fallback.push(`${kind}: ${known}`);
      continue;
    }
    try {
      if (kind === 'overlay' && !isRoot()) throw new Error('kernel overlay mounts need root');
      const from = lowerFor(kind);
      if (kind === 'overlay' || kind === 'fuse-overlayfs') {
        const upper = await mountOverlay(kind, from, ws);
        return { kind, lower: from, upper, ...(fallback.length && { fallback }) };
      }
      await copyTree(from, ws, kind === 'reflink');
      return { kind, lower: from, ...(fallback.length && { fallback }) };
    } catch (e) {
      if (e instanceof InfraError) throw e;
      const why = errText(e);
      await rm(ws, { recursive: true, force: true });
      if (mode !== 'auto')
        throw new InfraError(
          'provision',
          `cannot make the workspace with --provision ${kind}: ${why}`,
          kind === 'overlay' || kind === 'fuse-overlayfs' ? 'mount_failed' : 'copy_failed',
        );
      unavailable.set(kind, why);
      fallback.push(`${kind}: ${why}`);
    }
  }
  throw new InfraError(
    'provision',
    `cannot make the workspace: ${fallback.join('; ')}`,
    'copy_failed',
  );
}

// ---- mounts ----

export interface MountEntry {
  point: string;
  fstype: string;
}

const decode = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o) => String.fromCharCode(+`0o${o}`));

/** This process's mount table (/proc/self/mountinfo). */
export function mountTable(): MountEntry[] {
  let info: string;
  try {
    info = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  return info
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const f = line.split(' ');
      const sep = f.indexOf('-');
      return { point: decode(f[4] ?? ''), fstype: f[sep + 1] ?? '' };
    });
}

/** The commands that unmount `m`, gentlest first. */
function unmountTries(m: MountEntry): string[][] {
  const fuse = m.fstype.startsWith('fuse');
  return fuse && !isRoot()
    ? [
        ['fusermount3', '-u', m.point],
        ['fusermount3', '-uz', m.point],
      ]
    : [
        ['umount', m.point],
        // Busy (a process still has a file open there): detach now, freed when it exits.
        ['umount', '-l', m.point],
      ];
}

const unmountFailed = (m: MountEntry, last: unknown) =>
  new InfraError('provision', `cannot unmount ${m.point}: ${errText(last)}`, 'unmount_failed');

function unmount(m: MountEntry): void {
  let last: unknown;
  for (const [cmd, ...args] of unmountTries(m))
    try {
      execFileSync(cmd, args, { stdio: 'pipe' });
      return;
    } catch (e) {
      last = e;
    }
  throw unmountFailed(m, last);
}

/** unmount() off the event loop: a trial's teardown, while other trials' agents are talking. */
async function unmountAsync(m: MountEntry): Promise<void> {
  let last: unknown;
  for (const [cmd, ...args] of unmountTries(m))
    try {
      await execText(cmd, args);
      return;
    } catch (e) {
      last = e;
    }
  throw unmountFailed(m, last);
}

/** What is mounted at or below `dir`, deepest first. */
const mountsUnder = (dir: string) =>
  mountTable()
    .filter((m) => m.point === dir || m.point.startsWith(`${dir}/`))
    .sort((a, b) => b.point.length - a.point.length);

/** Unmount everything mounted at or below `dir`, deepest first. Returns the mount points. */
export function unmountUnder(dir: string): string[] {
  const mine = mountsUnder(dir);
  for (const m of mine) unmount(m);
  return mine.map((m) => m.point);
}

/**
 * The trial's teardown: unmount the workspace if it is mounted, remove its layers and, unless
 * `keep`, the workspace. A kept overlay workspace becomes a plain directory holding what the
 * agent and the verifier left, so nothing stays mounted after a trial.
 */
export async function releaseWorkspace(ws: string, o: { keep?: boolean } = {}): Promise<void> {
  const mounted = mountTable().filter((m) => m.point === ws);
  const unmountAll = async () => {
    for (const m of mountsUnder(ws)) await unmountAsync(m);
  };
  if (mounted.length && o.keep) {
    const kept = `${ws}.kept`;
    await rm(kept, { recursive: true, force: true });
    await execText('cp', ['-a', ws, kept]);
    await unmountAll();
    await rm(ws, { recursive: true, force: true });
    await rename(kept, ws);
  } else if (mounted.length) await unmountAll();
  await rm(layersDir(ws), { recursive: true, force: true });
  if (!o.keep) await rm(ws, { recursive: true, force: true });
}

// ---- lower layers for another user ----

/**
 * The snapshot as a lower layer owned by `owner` (none-as-nobody runs the agent as nobody, who
 * must be able to write the workspace; chowning through an overlay would copy every file up).
 * Made once per snapshot and user, next to the snapshot, atomically, inside a directory only
 * NanoBench can enter (no other process of that user may change it: every overlay on it would
 * see the change). git's index is refreshed, so that `git status` in a trial hashes nothing.
 */
export function lowerOwnedBy(snapshotWs: string, owner: { uid: number; gid: number }): string {
  const home = join(dirname(snapshotWs), `as-${owner.uid}`);
  const dir = join(home, 'ws');
  if (existsSync(dir)) return dir;
  mkdirSync(home, { recursive: true, mode: 0o700 });
  chmodSync(home, 0o700);
  const tmp = join(home, `ws.tmp-${process.pid}-${Date.now()}`);
  try {
    execFileSync('cp', ['-a', '--reflink=auto', snapshotWs, tmp], { stdio: 'pipe' });
    execFileSync('chown', ['-R', '-P', '-h', `${owner.uid}:${owner.gid}`, tmp], { stdio: 'pipe' });
    if (lstatSync(join(tmp, '.git'), { throwIfNoEntry: false })?.isDirectory()) {
      // exit 1 = some entries need an update: still refreshed as far as it goes
      tryGit(tmp, ['update-index', '-q', '--refresh']);
      const index = join(tmp, '.git', 'index');
      if (existsSync(index)) chownSync(index, owner.uid, owner.gid);
    }
    try {
      renameSync(tmp, dir);
    } catch {
      rmSync(tmp, { recursive: true, force: true }); // another trial made it first
    }
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw new InfraError(
      'provision',
      `cannot prepare the environment for uid ${owner.uid}: ${errText(e)}`,
      'copy_failed',
    );
  }
  return dir;
}
