// Python puts the working directory (and test roots) first on sys.path, so a file the agent adds
// named like a standard-library or test-runner module replaces it for the test run: a
// `difflib.py` next to the tests can rewrite unittest's verdicts. Such additions are removed
// before verifying. Only outside packages (a directory without __init__.py) can a module
// shadow anything: inside a package it is imported as package.name.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

const RUNNERS = [
  'pytest',
  '_pytest',
  'pluggy',
  'py',
  'nose',
  'nose2',
  'xdist',
  'coverage',
  'sitecustomize',
  'usercustomize',
];

/** Used when no python3 can tell us its own list. */
const FALLBACK_STDLIB = [
  'unittest',
  'doctest',
  'site',
  'os',
  'sys',
  'io',
  're',
  'json',
  'difflib',
  'traceback',
  'argparse',
  'inspect',
  'warnings',
  'signal',
  'types',
  'functools',
  'collections',
  'contextlib',
  'pprint',
  'fnmatch',
  'importlib',
  'runpy',
  'typing',
  'weakref',
  'atexit',
  'builtins',
];

let cached: Set<string> | undefined;

/** Top-level module names a workspace file must not shadow (python3's own stdlib list). */
export function protectedModules(envPath?: string): Set<string> {
  if (!cached) {
    let names = FALLBACK_STDLIB;
    try {
      const out = execFileSync(
        'python3',
        ['-I', '-c', 'import sys; print("\\n".join(sorted(sys.stdlib_module_names)))'],
        { encoding: 'utf8', env: { PATH: envPath ?? process.env.PATH ?? '/usr/bin:/bin' } },
      );
      names = out.split('\n').filter(Boolean);
    } catch {
      // no python3 (or < 3.10): the short list covers what test runners import first
    }
    // `test` is CPython's own regression suite, which no runner imports; a project's new
    // test/ package must not be mistaken for an attack.
    cached = new Set([...names, ...RUNNERS].filter((n) => n !== 'test'));
  }
  return cached;
}

/** The module name `rel` would be imported as from its directory, if it is a module. */
export function moduleName(
  rel: string,
  type: 'file' | 'dir' | 'symlink' | 'other',
  ws: string,
): string | undefined {
  const name = basename(rel);
  if (type === 'dir')
    return existsSync(join(ws, rel, '__init__.py')) || existsSync(join(ws, rel, '__main__.py'))
      ? name
      : undefined;
  const m = /^([A-Za-z_][A-Za-z0-9_]*)(\.py|\.pyc|(\.[A-Za-z0-9_-]+)?\.so)$/.exec(name);
  return m?.[1];
}

/** Whether an agent-added entry would shadow a protected module on some sys.path root. */
export function shadows(
  rel: string,
  type: 'file' | 'dir' | 'symlink' | 'other',
  ws: string,
  modules: Set<string>,
): boolean {
  const mod = moduleName(rel, type, ws);
  if (!mod || !modules.has(mod)) return false;
  const parent = dirname(rel);
  return parent === '.' || !existsSync(join(ws, parent, '__init__.py'));
}
