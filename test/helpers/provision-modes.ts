// The provisioning modes (src/workspace/layers.ts) and where each can be tested here. overlay
// needs root; fuse-overlayfs its package and a usable /dev/fuse; reflink a filesystem that shares
// blocks, so as root its tests run on an XFS image mounted from a loop device. npm test installs
// fuse-overlayfs and xfsprogs as root (scripts/test.sh) and sets NANOBENCH_REQUIRE_PROVISION:
// then a mode that cannot be tested fails instead of being skipped.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { which } from '../../src/util/which.js';
import {
  makeWorkspace,
  type ProvisionKind,
  releaseWorkspace,
  unmountUnder,
} from '../../src/workspace/layers.js';
import { varTempDir } from './cli.js';
import { isRoot } from './processes.js';

const require_ = Boolean(process.env.NANOBENCH_REQUIRE_PROVISION || (isRoot && process.env.CI));

/** Why `mode` cannot be used here, or undefined when it can. */
async function problem(mode: ProvisionKind, root: string): Promise<string | undefined> {
  if (mode === 'overlay' && !isRoot) return 'kernel overlay mounts need root';
  if (mode === 'fuse-overlayfs' && !which('fuse-overlayfs'))
    return 'fuse-overlayfs is not installed (apt-get install fuse-overlayfs)';
  if (mode === 'reflink' && !isRoot) return 'the XFS image needs root to be mounted';
  if (mode === 'reflink' && !which('mkfs.xfs'))
    return 'mkfs.xfs is not installed (apt-get install xfsprogs)';
  // The mode itself, once: a tiny workspace.
  const dir = mkdtempSync(join(root, 'probe-'));
  try {
    mkdirSync(join(dir, 'lower'));
    await makeWorkspace(join(dir, 'lower'), join(dir, 'ws'), mode);
    await releaseWorkspace(join(dir, 'ws'));
    return undefined;
  } catch (e) {
    return (e as Error).message;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ModeCase {
  mode: ProvisionKind;
  /** A directory on a filesystem the mode works on (results and cache go below it). */
  root: string;
  skip: boolean;
}

/**
 * One case per mode, with a fresh root for it. reflink's root is an XFS image mounted from a loop
 * device; `release()` unmounts everything below the roots and removes them.
 */
export async function provisionModes(): Promise<{ cases: ModeCase[]; release: () => void }> {
  const base = varTempDir('nb-modes-');
  const cases: ModeCase[] = [];
  for (const mode of ['overlay', 'fuse-overlayfs', 'reflink', 'copy'] as ProvisionKind[]) {
    const root = join(base, mode);
    mkdirSync(root);
    const mkfs = which('mkfs.xfs');
    if (mode === 'reflink' && isRoot && mkfs) {
      const image = join(base, 'xfs.img');
      execFileSync('truncate', ['-s', '512M', image]);
      execFileSync(mkfs, ['-q', image]);
      execFileSync('mount', ['-o', 'loop', image, root]);
    }
    const why = await problem(mode, root);
    if (why && require_) throw new Error(`provisioning mode ${mode} cannot be tested here: ${why}`);
    cases.push({ mode, root, skip: why !== undefined });
  }
  return {
    cases,
    release: () => {
      unmountUnder(base); // a failed test's workspaces, deepest first, then the XFS image
      rmSync(base, { recursive: true, force: true });
    },
  };
}
