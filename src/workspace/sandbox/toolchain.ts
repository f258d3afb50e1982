// What the agent may see read-only: the system toolchain, toolchains on PATH (pyenv, cargo, a
// Node install under /opt...), and nothing of NanoBench itself (golden patches, results, caches).
import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, dirname, isAbsolute, join } from 'node:path';

/** Top-level system directories; on merged-/usr systems most are symlinks into /usr. */
const SYSTEM_DIRS = [
  '/usr',
  '/bin',
  '/sbin',
  '/lib',
  '/lib32',
  '/lib64',
  '/libx32',
  '/etc',
  '/opt',
];

/** Secrets under /etc and toolchain roots, hidden behind an empty file or an empty tmpfs. */
const SECRET_FILES = [
  '/etc/shadow',
  '/etc/shadow-',
  '/etc/gshadow',
  '/etc/gshadow-',
  '/etc/sudoers',
  '/etc/security/opasswd',
];
const SECRET_DIRS = ['/etc/ssh', '/etc/ssl/private', '/etc/sudoers.d', '/etc/credstore'];
/** Relative to a toolchain root found on PATH (a registry token must not reach the agent). */
const TOOLCHAIN_SECRETS = ['credentials', 'credentials.toml', '.credentials.json', 'auth.json'];

export interface Toolchain {
  /** [source, dest] pairs of symlinks to recreate (e.g. /bin -> usr/bin). */
  symlinks: [string, string][];
  readOnly: string[];
  /** Files to cover with an empty file. */
  hideFiles: string[];
  /** Directories to cover with an empty tmpfs (secrets, and protected NanoBench paths). */
  hideDirs: string[];
}

export const isInside = (p: string, dir: string) =>
  p === dir || p.startsWith(dir.endsWith('/') ? dir : `${dir}/`);

const real = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return undefined;
  }
};

/**
 * The install root of a PATH entry: `<root>/bin`, `<root>/sbin` and pyenv-style `<root>/shims`
 * need their root (libraries, versions); anything else is taken as it is.
 */
export function pathRoot(dir: string): string {
  return ['bin', 'sbin', 'shims'].includes(basename(dir)) ? dirname(dir) : dir;
}

/**
 * Toolchain roots from PATH that the system directories do not already cover. Never the user's
 * home itself, never `/`, and never anything that contains or lies in a protected path.
 */
export function pathToolchains(envPath: string | undefined, protectedPaths: string[]): string[] {
  const home = real(homedir());
  const roots = new Set<string>();
  for (const entry of (envPath ?? '').split(delimiter)) {
    if (!entry || !isAbsolute(entry)) continue;
    const dir = real(entry);
    if (!dir) continue;
    const root = pathRoot(dir);
    if (root === '/' || root === home) continue;
    if (SYSTEM_DIRS.some((s) => isInside(root, s))) continue;
    if (protectedPaths.some((p) => isInside(root, p) || isInside(p, root))) continue;
    roots.add(root);
  }
  // Nested roots are covered by their parent.
  return [...roots].filter((r) => ![...roots].some((o) => o !== r && isInside(r, o))).sort();
}

export function toolchain(envPath: string | undefined, protectedPaths: string[]): Toolchain {
  const symlinks: [string, string][] = [];
  const readOnly: string[] = [];
  for (const d of SYSTEM_DIRS) {
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(d);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) symlinks.push([readlinkSync(d), d]);
    else if (st.isDirectory()) readOnly.push(d);
  }
  const extra = pathToolchains(envPath, protectedPaths);
  readOnly.push(...extra);
  const hideFiles = SECRET_FILES.filter((f) => isFile(f));
  const hideDirs = SECRET_DIRS.filter((d) => isDir(d));
  for (const root of extra)
    for (const s of TOOLCHAIN_SECRETS) {
      const p = join(root, s);
      if (isFile(p)) hideFiles.push(p);
    }
  // A protected path under a bound directory (e.g. NanoBench installed under /usr/lib) is hidden.
  for (const p of protectedPaths)
    if (readOnly.some((r) => isInside(p, r)) && isDir(p)) hideDirs.push(p);
  return { symlinks, readOnly, hideFiles, hideDirs };
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function isDir(p: string): boolean {
  return existsSync(p) && statSync(p).isDirectory();
}
