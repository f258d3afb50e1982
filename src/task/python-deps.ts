// What installing a Python project needs, read from its metadata (pyproject.toml, setup.cfg,
// setup.py): its requirements, its test extras, its Python version and whether it must be built
// (a compiled extension). A pure-Python project needs no install at all to be tested from its
// checkout: its own code is put on PYTHONPATH (src/ layout or the root) and each requirement is
// a module Debian ships as python3-<name>. `pip install -e .` on a machine without a Python
// registry fails even for a standard-library-only project (the build backend itself is
// downloaded), so the import guesses that route only when a build is needed.
import { parse } from 'smol-toml';

export interface PythonNeeds {
  /** Import names of the runtime and test requirements (pytest excluded: the suite asks for it). */
  modules: string[];
  /** "3.10" from requires-python = ">=3.10", when stated. */
  minPython?: string;
  /** Why the project has to be built (compiled code), when it does. */
  build?: string;
  /** Where its packages live: "src" (src layout) or "" (the root). */
  sourceRoot: string;
}

/** Distribution names whose module is named otherwise. */
const MODULE_OF: Record<string, string> = {
  pyyaml: 'yaml',
  'python-dateutil': 'dateutil',
  attrs: 'attr',
  beautifulsoup4: 'bs4',
  pillow: 'PIL',
  'typing-extensions': 'typing_extensions',
  'importlib-metadata': 'importlib_metadata',
  'scikit-learn': 'sklearn',
  msgpack: 'msgpack',
  pyjwt: 'jwt',
  pyopenssl: 'OpenSSL',
};

/** Requirements that never need installing for tests run from a checkout. */
const NOT_NEEDED =
  /^(pytest|pytest-cov|coverage|setuptools|wheel|pip|flit[-_]core|hatchling|poetry-core|pdm-backend|setuptools[-_]scm)$/;

/** A requirement string ("requests[socks]>=2; python_version<'3.8'") -> its distribution name, or undefined when its marker excludes this Python. */
function requirementName(req: string): string | undefined {
  const [spec, marker] = req.split(';');
  // Backports for Pythons older than any Debian ships.
  if (marker && /python_version\s*<\s*["']3\.(\d+)["']/.test(marker)) {
    const minor = Number(/python_version\s*<\s*["']3\.(\d+)["']/.exec(marker)![1]);
    if (minor <= 11) return undefined;
  }
  if (
    marker &&
    /sys_platform\s*==\s*["'](win32|darwin)["']|platform_system\s*==\s*["'](Windows|Darwin)["']/.test(
      marker,
    )
  )
    return undefined;
  const name = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(spec)?.[1];
  return name?.toLowerCase().replace(/_/g, '-');
}

export const moduleOf = (dist: string) => MODULE_OF[dist] ?? dist.replace(/[-.]/g, '_');

const TEST_EXTRAS = ['test', 'tests', 'testing'];

type Table = Record<string, unknown>;
const table = (x: unknown): Table =>
  x !== null && typeof x === 'object' && !Array.isArray(x) ? (x as Table) : {};
const strings = (x: unknown): string[] =>
  Array.isArray(x) ? x.filter((v): v is string => typeof v === 'string') : [];

function fromPyproject(text: string): { reqs: string[]; minPython?: string; build?: string } {
  let t: Table;
  try {
    t = parse(text);
  } catch {
    return { reqs: [] };
  }
  const project = table(t.project);
  const reqs = strings(project.dependencies);
  for (const extra of TEST_EXTRAS) {
    reqs.push(...strings(table(project['optional-dependencies'])[extra]));
    reqs.push(...strings(table(t['dependency-groups'])[extra]));
  }
  const poetry = table(table(table(t.tool).poetry).dependencies);
  reqs.push(...Object.keys(poetry).filter((k) => k !== 'python'));
  const system = table(t['build-system']);
  const backend = String(system['build-backend'] ?? '');
  const requires = strings(system.requires);
  const compiled =
    /maturin|scikit_build|mesonpy|enscons/.test(backend) ||
    requires.some((r) =>
      /^(cython|maturin|scikit-build|meson-python|cffi|pybind11|setuptools-rust)\b/i.test(r),
    );
  const minPython = /(?:>=|~=)\s*3\.(\d+)/.exec(String(project['requires-python'] ?? ''))?.[1];
  return {
    reqs,
    ...(minPython && { minPython: `3.${minPython}` }),
    ...(compiled && {
      build: `the build backend needs compiling (${backend || requires.join(', ')})`,
    }),
  };
}

/** install_requires = ... of setup.cfg (one per line) or setup.py (a list literal). */
function fromSetup(cfg: string, py: string): { reqs: string[]; build?: string } {
  const reqs: string[] = [];
  const section = /install_requires\s*=\s*\n((?:[ \t]+\S.*\n?)*)/.exec(cfg)?.[1];
  if (section)
    reqs.push(
      ...section
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean),
    );
  const list = /install_requires\s*=\s*\[([^\]]*)\]/.exec(py)?.[1];
  if (list) reqs.push(...[...list.matchAll(/["']([^"']+)["']/g)].map((m) => m[1]));
  const build = /ext_modules|Extension\(|cythonize/.test(py)
    ? 'setup.py builds a C extension'
    : undefined;
  return { reqs, ...(build && { build }) };
}

export function pythonNeeds(
  files: Set<string>,
  read: (p: string) => string | undefined,
  dir: string,
): PythonNeeds {
  const at = (f: string) => (dir ? `${dir}/${f}` : f);
  const text = (f: string) => read(at(f)) ?? '';
  const pp = fromPyproject(text('pyproject.toml'));
  const st = fromSetup(text('setup.cfg'), text('setup.py'));
  const reqs = [...pp.reqs, ...st.reqs];
  // A plain application declares its requirements in requirements.txt instead of metadata.
  if (reqs.length === 0 && !files.has(at('pyproject.toml')) && !files.has(at('setup.py')))
    reqs.push(
      ...text('requirements.txt')
        .split('\n')
        .map((l) => l.replace(/#.*/, '').trim())
        .filter((l) => l && !l.startsWith('-')),
    );
  const modules = [
    ...new Set(
      reqs
        .map(requirementName)
        .filter((n): n is string => n !== undefined && !NOT_NEEDED.test(n))
        .map(moduleOf),
    ),
  ].sort();
  const prefix = at('src/');
  const srcLayout = [...files].some(
    (f) => f.startsWith(prefix) && /^[^/]+\/__init__\.py$/.test(f.slice(prefix.length)),
  );
  const build = pp.build ?? st.build;
  return {
    modules,
    ...(pp.minPython && { minPython: pp.minPython }),
    ...(build && { build }),
    sourceRoot: srcLayout ? 'src' : '',
  };
}

/** Debian's package for a module: python3-<module> ("yaml" -> python3-yaml). */
export const debianPackage = (module: string) =>
  `python3-${module.toLowerCase().replace(/_/g, '-')}`;

/**
 * An install command that installs nothing: it checks that this machine's python3 is recent
 * enough and has each module (naming Debian's package when not), so a missing one fails the
 * install with the fix in one line instead of failing every test.
 */
export function checkOnlyInstall(needs: PythonNeeds, pytest: boolean): string {
  const checks: string[] = [];
  if (needs.minPython) {
    const [maj, min] = needs.minPython.split('.');
    checks.push(
      `python3 -c 'import sys; assert sys.version_info >= (${maj}, ${min})' || { echo 'needs Python >= ${needs.minPython} as python3' >&2; exit 1; }`,
    );
  }
  for (const m of [...(pytest ? ['pytest'] : []), ...needs.modules])
    checks.push(
      `python3 -c 'import ${m}' || { echo 'needs ${m}: apt-get install ${debianPackage(m)}' >&2; exit 1; }`,
    );
  return checks.join(' && ');
}
