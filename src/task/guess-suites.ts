// Guessing how a repository runs its tests, for `task import`. Everything here is a guess from the
// repository at the PR commit (package.json scripts and dependencies, lock files, Python config);
// each guess comes with a note saying what it was based on, and the curator checks it
// (`nanobench validate` runs the suites, so a wrong guess fails loudly).
import { posix } from 'node:path';
import { jestCommand, mochaCommand, pytestCommand } from './argv-free.js';
import {
  buildPlan,
  type PackageManager,
  pmPath,
  pmPrefix,
  pmSetup,
  TOOLS_DIR,
} from './build-steps.js';
import { checkOnlyInstall, debianPackage, pythonNeeds } from './python-deps.js';
import type { ResultFormat } from './schema.js';
import {
  chooseInvocation,
  invocations,
  optionsOnly,
  type Runner,
  runnableTestFiles,
} from './script-runners.js';
import { languageOf, testRoot } from './test-paths.js';

export interface RepoView {
  /** Every file path at the commit. */
  files: Set<string>;
  read(path: string): string | undefined;
}

export interface GuessedSuite {
  name: string;
  language: string;
  command: string;
  format: ResultFormat;
  result_file?: string;
  test_files: string[];
}

export interface SuiteGuess {
  suites: GuessedSuite[];
  install_command: string | null;
  notes: string[];
}

const RESULT_JSON = '.nanobench-results.json';
const RESULT_XML = '.nanobench-results.xml';

const ARGV_NOTE = (runner: string) =>
  `${runner} is called through its CLI entry from node -e, so the tests' process.argv holds none of the reporter options (code under test that parses process.argv would see them and could exit the runner before its report)`;

const inDir = (dir: string, cmd: string) => (dir ? `cd ${dir} && ${cmd}` : cmd);
const rel = (dir: string, file: string) => (dir ? `${dir}/${file}` : file);
const slug = (dir: string) => dir.toLowerCase().replace(/[^a-z0-9]+/g, '-');

/** Nearest directory (walking up from the file's own) that holds one of `markers`. */
function nearest(repo: RepoView, file: string, markers: string[]): string | undefined {
  let dir = posix.dirname(file);
  for (;;) {
    const d = dir === '.' ? '' : dir;
    if (markers.some((m) => repo.files.has(rel(d, m)))) return d;
    if (d === '') return undefined;
    dir = posix.dirname(dir);
  }
}

function groupBy<T>(xs: T[], key: (x: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const x of xs) m.set(key(x), [...(m.get(key(x)) ?? []), x]);
  return m;
}

/** Drops reporter, output, watch and coverage options: the guess sets its own. */
function plainArgs(args: string[]): string[] {
  const out: string[] = [];
  const withValue = /^(--reporter|-R|--outputFile|--test-reporter|--test-reporter-destination)$/;
  const drop =
    /^((--reporter|--outputFile|--test-reporter|--test-reporter-destination)=.*|--json|--watch|--watchAll|--coverage|--ci|run|watch)$/;
  for (let i = 0; i < args.length; i++) {
    if (withValue.test(args[i])) i++;
    else if (!drop.test(args[i])) out.push(args[i]);
  }
  return out;
}

function major(version: string | undefined): number | undefined {
  const m = /(\d+)/.exec(version ?? '');
  return m ? Number(m[1]) : undefined;
}

const LOCK_FILES = ['pnpm-lock.yaml', 'yarn.lock', 'package-lock.json', 'npm-shrinkwrap.json'];

const parsePkg = (text: string | undefined): Record<string, unknown> => {
  try {
    return JSON.parse(text ?? '{}');
  } catch {
    return {};
  }
};

/**
 * The install command for the package in `dir`, and where it runs. A package of a monorepo
 * without a lock file of its own is installed from the root, where the workspace's lock file is
 * (a package whose dependencies are all hoisted declares none itself). `setup` fetches the
 * package manager first, from the workspace root (build-steps.ts).
 */
function jsInstall(repo: RepoView, dir: string, own: Record<string, unknown>): JsInstall | null {
  const { dir: where, pkg } = installRoot(repo, dir, own);
  const deps = {
    ...(pkg.dependencies as object),
    ...(pkg.devDependencies as object),
    ...(own.dependencies as object),
    ...(own.devDependencies as object),
  };
  if (Object.keys(deps).length === 0) return null;
  const pm = packageManager(repo, where, pkg);
  const setup = pmSetup(pm);
  return { command: installCommand(repo, where, pm), dir: where, ...(setup && { setup }) };
}

interface JsInstall {
  command: string;
  dir: string;
  setup?: string;
}

/** The package manager a package's install uses: packageManager, else its lock file. */
function packageManager(repo: RepoView, dir: string, pkg: Record<string, unknown>): PackageManager {
  const pm = typeof pkg.packageManager === 'string' ? pkg.packageManager.split('+')[0] : '';
  const has = (f: string) => repo.files.has(rel(dir, f)) || repo.files.has(f);
  if (pm.startsWith('pnpm@') || has('pnpm-lock.yaml')) {
    const lock = repo.read(rel(dir, 'pnpm-lock.yaml')) ?? repo.read('pnpm-lock.yaml') ?? '';
    const lockMajor = major(/lockfileVersion:\s*'?([\d.]+)/.exec(lock)?.[1]);
    const guess = lockMajor === 9 ? '9' : lockMajor === 6 ? '8' : lockMajor === 5 ? '7' : '9';
    return { kind: 'pnpm', version: pm.startsWith('pnpm@') ? pm.slice(5) : guess };
  }
  if (pm.startsWith('yarn@') || has('yarn.lock'))
    return { kind: 'yarn', version: pm.startsWith('yarn@') ? pm.slice(5) : '1' };
  return { kind: 'npm' };
}

/** Where a package's install runs and the package.json that decides it (monorepos: the root). */
function installRoot(repo: RepoView, dir: string, own: Record<string, unknown>) {
  const ownLock = LOCK_FILES.some((f) => repo.files.has(rel(dir, f)));
  const fromRoot = dir !== '' && !ownLock && LOCK_FILES.some((f) => repo.files.has(f));
  return fromRoot ? { dir: '', pkg: parsePkg(repo.read('package.json')) } : { dir, pkg: own };
}

function installCommand(repo: RepoView, dir: string, pm: PackageManager): string {
  const has = (f: string) => repo.files.has(rel(dir, f)) || repo.files.has(f);
  if (pm.kind === 'pnpm') return `${pmPrefix(pm)} install --frozen-lockfile`;
  if (pm.kind === 'yarn')
    return `${pmPrefix(pm)} install ${(major(pm.version) ?? 1) >= 2 ? '--immutable' : '--frozen-lockfile'}`;
  if (has('package-lock.json') || has('npm-shrinkwrap.json')) return 'npm ci';
  return 'npm install';
}

function jsSuite(
  repo: RepoView,
  dir: string,
  testFiles: string[],
  notes: string[],
  narrow: boolean,
): { suite: Omit<GuessedSuite, 'name'>; install: JsInstall | null } {
  const pkgText = repo.read(rel(dir, 'package.json')) ?? '{}';
  let pkg: Record<string, unknown> = {};
  try {
    pkg = JSON.parse(pkgText);
  } catch {
    notes.push(`${rel(dir, 'package.json')} is not valid JSON; guessed "npm test"`);
  }
  const scripts = (pkg.scripts as Record<string, string> | undefined) ?? {};
  const script = (scripts.test ?? '').trim();
  const deps = { ...(pkg.devDependencies as object), ...(pkg.dependencies as object) } as Record<
    string,
    string
  >;
  // Paths relative to the package, as its runner sees them.
  const local = testFiles.map((f) => (dir ? f.slice(dir.length + 1) : f));
  const all = invocations(scripts);
  const inScript = chooseInvocation(all, local);
  const skipped = all.filter((i) => i !== inScript);
  const fromScript = inScript !== undefined;
  const found =
    inScript ??
    (['vitest', 'jest', 'mocha', 'tap', 'tape'] as const)
      .filter((r) => r in deps)
      .map((runner) => ({
        runner: runner as Runner,
        args: [] as string[],
        script: 'test',
        env: [] as string[],
        before: [],
      }))[0];
  // The suite's language is what most of its test files are written in: a PR that also touches
  // a type-level test file (never run by the suite) is still a JavaScript suite.
  const ts = testFiles.filter((f) => languageOf(f) === 'typescript').length;
  const language = ts * 2 > testFiles.length ? 'typescript' : 'javascript';
  const test_files = [...new Set(testFiles.map(testRoot))].sort();
  const base = { language, test_files };
  // Point the runner at the PR's test files instead of the script's own filters: the suite then
  // runs the tests that decide the task, in the time they take.
  // A test file the PR deletes is no file to point the runner at.
  const present = local.filter((f) => repo.files.has(rel(dir, f)));
  const runnable = found && narrow ? runnableTestFiles(found.runner, present) : [];
  const argList = found
    ? [
        ...plainArgs(runnable.length ? optionsOnly(found.runner, found.args) : found.args),
        ...runnable,
      ]
    : [];
  const args = argList.join(' ');
  const tail = args ? ` ${args}` : '';
  if (skipped.length && inScript)
    notes.push(
      `the test scripts invoke ${all.length} runner(s); took "${found.runner}${found.args.length ? ` ${found.args.join(' ')}` : ''}" (script "${found.script}") as the one that reaches the PR's test files, not ${skipped.map((i) => `"${i.runner} ${i.args.join(' ')}"`.replace(/ "$/, '"')).join(', ')}`,
    );
  if (found && runnable.length)
    notes.push(
      `suite narrowed to the PR's ${runnable.length} test file(s): ${runnable.join(', ')}; widen it by hand if more of the package's tests should guard against breakage`,
    );
  else if (found && narrow)
    notes.push(
      `none of the PR's test files is one a runner can be pointed at (${local.join(', ') || 'none'}); the script's own arguments were kept`,
    );
  const where = `${rel(dir, 'package.json')}${script ? ` (test script "${script}")` : ''}`;
  const root = installRoot(repo, dir, pkg);
  const build = buildFirst(
    scripts,
    found?.before ?? [],
    packageManager(repo, root.dir, root.pkg),
    builtImports(repo, dir, testFiles),
    dir,
  );
  if (build.note) notes.push(build.note);
  // What the script sets for its runner is set for it here too (cross-env is not needed: the
  // suite runs in a POSIX shell).
  const env = found?.env.length ? `${found.env.join(' ')} ` : '';
  if (env)
    notes.push(
      `the test script sets ${found!.env.join(' ')} for its runner; the suite command does too`,
    );
  const run = (cmd: string) => inDir(dir, `${build.prefix}${env}${cmd}`);
  let suite: Omit<GuessedSuite, 'name'>;
  switch (found?.runner) {
    case 'vitest':
      suite = {
        ...base,
        command: run(`npx vitest run --reporter=json --outputFile=${RESULT_JSON}${tail}`),
        format: 'vitest-json',
        result_file: rel(dir, RESULT_JSON),
      };
      break;
    case 'jest':
      suite = {
        ...base,
        command: run(jestCommand(['--ci', '--json', `--outputFile=${RESULT_JSON}`, ...argList])),
        format: 'jest-json',
        result_file: rel(dir, RESULT_JSON),
      };
      notes.push(ARGV_NOTE('jest'));
      break;
    case 'mocha': {
      const argvFree = mochaCommand(['--reporter', 'tap', ...argList], major(deps.mocha));
      suite = {
        ...base,
        command: run(argvFree ?? `npx mocha --reporter tap${tail}`),
        format: 'tap',
      };
      notes.push(
        argvFree
          ? ARGV_NOTE('mocha')
          : 'mocha is run as "npx mocha": its arguments need a Node child process (Node options) or it predates mocha 6; the tests see --reporter tap in process.argv',
      );
      break;
    }
    case 'tap': {
      const cov = (major(deps.tap) ?? 18) >= 18 ? '--disable-coverage' : '--no-coverage';
      suite = {
        ...base,
        command: run(`npx tap --reporter=tap ${cov}${tail}`),
        format: 'tap',
      };
      break;
    }
    case 'tape':
      suite = { ...base, command: run(`npx tape${tail}`), format: 'tap' };
      break;
    case 'node':
      suite = {
        ...base,
        command: run(`node --test --test-reporter=tap${tail}`),
        format: 'node-tap',
      };
      break;
    default:
      suite = { ...base, command: inDir(dir, 'npm test'), format: 'exit-code' };
      notes.push(
        `no known test runner in ${where}: the suite is "npm test" graded by exit code only (one test); give it a per-test format if you can`,
      );
  }
  if (found)
    notes.push(
      `suite from ${where}: runner ${found.runner}${fromScript ? '' : ' (from the dependencies; the script does not call it directly)'}, format ${suite.format}`,
    );
  return { suite, install: jsInstall(repo, dir, pkg) };
}

/**
 * The directories of the package that the PR's test files import by a relative path but git does
 * not hold: build output (`../../libesm/diff/word.js` -> "libesm").
 */
function builtImports(repo: RepoView, dir: string, testFiles: string[]): string[] {
  const out = new Set<string>();
  const spec = /(?:\bfrom\s*|\brequire\(\s*|\bimport\(\s*)['"](\.{1,2}\/[^'"]+)['"]/g;
  for (const f of testFiles) {
    for (const m of (repo.read(f) ?? '').matchAll(spec)) {
      const target = posix.normalize(posix.join(posix.dirname(f), m[1]));
      const local = dir ? posix.relative(dir, target) : target;
      const top = local.split('/')[0];
      if (!local.includes('/') || top === '..' || top === '') continue;
      const held = [...repo.files].some((p) => p.startsWith(`${rel(dir, top)}/`));
      if (!held) out.add(top);
    }
  }
  return [...out].sort();
}

/**
 * The build steps that precede the chosen runner in its script chain, as a prefix of the suite's
 * command: their output goes to stderr (the runner's report stays alone on stdout), and `;`, not
 * `&&`, so a failed build still leaves the runner to report the tests it breaks.
 */
function buildFirst(
  scripts: Record<string, string>,
  before: Parameters<typeof buildPlan>[1],
  pm: PackageManager,
  imported: string[],
  dir: string,
): { prefix: string; note?: string } {
  const plan = buildPlan(scripts, before, pm, imported);
  const list = (xs: string[]) => xs.map((x) => `"${x}"`).join(', ');
  const left =
    (plan.skipped.length ? `; left out as lint, check or test steps: ${list(plan.skipped)}` : '') +
    (plan.unneeded.length
      ? `; left out as writing nothing the tests import (${imported.map((d) => `${d}/`).join(', ')}): ${list(plan.unneeded)}`
      : '');
  if (plan.commands.length === 0)
    return { prefix: '', note: left ? `nothing to build before the runner${left}` : undefined };
  // The package manager the install fetched (pmSetup), on PATH from the package's directory.
  const path = pmPath(pm, dir);
  return {
    prefix: `${path ? `${path}; ` : ''}{ ${plan.commands.join('; ')}; } >&2; `,
    note: `the test script builds before its runner: the suite runs ${plan.commands.map((c) => `"${c}"`).join(', ')} first, output to stderr${left}`,
  };
}

const PY_ROOT_MARKERS = ['pyproject.toml', 'setup.py', 'setup.cfg', 'pytest.ini', 'tox.ini'];

function pySuites(repo: RepoView, testFiles: string[], notes: string[], narrow: boolean) {
  const out: { suite: Omit<GuessedSuite, 'name'>; install: string | null; dir: string }[] = [];
  const rootOf = (f: string) => {
    const marked = nearest(repo, f, PY_ROOT_MARKERS);
    if (marked !== undefined) return marked;
    const r = testRoot(f);
    return r.endsWith('/') ? posix.dirname(r.slice(0, -1)).replace(/^\.$/, '') : '';
  };
  for (const [dir, files] of groupBy(testFiles, rootOf)) {
    const text = (f: string) => repo.read(rel(dir, f)) ?? '';
    const config = ['pyproject.toml', 'setup.cfg', 'tox.ini', 'setup.py']
      .map(text)
      .concat(
        [...repo.files]
          .filter((f) => /(^|\/)requirements[^/]*\.txt$/.test(f))
          .map((f) => repo.read(f) ?? ''),
      )
      .join('\n');
    const pytest =
      repo.files.has(rel(dir, 'pytest.ini')) ||
      [...repo.files].some((f) => f.endsWith('conftest.py')) ||
      /pytest/.test(config) ||
      files.some((f) => /^\s*(import|from) pytest/m.test(repo.read(f) ?? ''));
    const env = pythonEnvironment(repo, dir, pytest, notes);
    const test_files = [...new Set(files.map(testRoot))].sort();
    const local = files.map((f) => (dir ? f.slice(dir.length + 1) : f));
    const present = local.filter((f) => repo.files.has(rel(dir, f)));
    const runnable = narrow ? runnableTestFiles(pytest ? 'pytest' : 'unittest', present) : [];
    const tail = runnable.length ? ` ${runnable.join(' ')}` : '';
    if (runnable.length)
      notes.push(
        `Python suite narrowed to the PR's ${runnable.length} test file(s): ${runnable.join(', ')}`,
      );
    // pytest's reporter options go in PYTEST_ADDOPTS, out of the sys.argv the tests see.
    const suite: Omit<GuessedSuite, 'name'> = pytest
      ? {
          language: 'python',
          command: inDir(
            dir,
            pytestCommand(
              env.prefix,
              env.python,
              ['-p', 'no:cacheprovider', '-q', `--junitxml=${RESULT_XML}`],
              runnable,
            ),
          ),
          format: 'junit-xml',
          result_file: rel(dir, RESULT_XML),
          test_files,
        }
      : {
          language: 'python',
          command: inDir(dir, `${env.prefix}${env.python} -m unittest -v${tail}`),
          format: 'unittest',
          test_files,
        };
    notes.push(
      `Python suite in ${dir || 'the root'}: ${pytest ? "pytest (pytest config, conftest.py or an import of pytest found; its reporter options in PYTEST_ADDOPTS, off the tests' sys.argv)" : 'unittest (no sign of pytest)'}`,
    );
    out.push({ suite, install: env.install, dir });
  }
  return out;
}

/**
 * Where a Python project's tests run: from the checkout with PYTHONPATH and this machine's
 * python3 when the project is pure Python (its requirements checked, never downloaded), in a
 * .venv with pip only when it must be built (python-deps.ts).
 */
function pythonEnvironment(
  repo: RepoView,
  dir: string,
  pytest: boolean,
  notes: string[],
): { python: string; prefix: string; install: string | null } {
  const declares = ['requirements.txt', 'pyproject.toml', 'setup.py', 'setup.cfg'].some((f) =>
    repo.files.has(rel(dir, f)),
  );
  if (!declares) return { python: 'python3', prefix: '', install: null };
  const needs = pythonNeeds(repo.files, (f) => repo.read(f), dir);
  if (needs.build) {
    const what = [
      repo.files.has(rel(dir, 'requirements.txt')) ? '-r requirements.txt' : '',
      repo.files.has(rel(dir, 'pyproject.toml')) || repo.files.has(rel(dir, 'setup.py'))
        ? '-e .'
        : '',
      pytest ? 'pytest' : '',
    ]
      .filter(Boolean)
      .join(' ');
    notes.push(
      `Python dependencies installed into a .venv from ${rel(dir, '') || 'the root'} (${needs.build}; needs a Python package registry)`,
    );
    return {
      python: '.venv/bin/python',
      prefix: '',
      install: `python3 -m venv .venv && echo .venv/ >> "$(git rev-parse --git-dir)/info/exclude" && .venv/bin/python -m pip install -q ${what}`,
    };
  }
  const install = checkOnlyInstall(needs, pytest);
  notes.push(
    `pure-Python project: nothing installed, tests run from the checkout with PYTHONPATH=${needs.sourceRoot || '.'} and this machine's python3${needs.modules.length ? `; its requirements must be importable (Debian: ${needs.modules.map(debianPackage).join(', ')})` : ' (standard library only)'}`,
  );
  return {
    python: 'python3',
    prefix: `PYTHONPATH=${needs.sourceRoot || '.'} `,
    install: install || null,
  };
}

/**
 * Test suites and install command for a PR's test files. JS/TS test files are grouped by their
 * nearest package.json, Python test files by their nearest project root; one suite per group.
 */
export function guessSuites(
  repo: RepoView,
  testFiles: string[],
  o: { narrow?: boolean } = {},
): SuiteGuess {
  const notes: string[] = [];
  const js = testFiles.filter((f) => ['javascript', 'typescript'].includes(languageOf(f) ?? ''));
  const py = testFiles.filter((f) => f.endsWith('.py'));
  if (js.length === 0 && py.length === 0 && repo.files.has('package.json')) js.push('package.json');
  const suites: GuessedSuite[] = [];
  const installs: string[] = [];
  const name = (lang: string, dir: string, i: number) => (i === 0 ? lang : `${lang}-${slug(dir)}`);
  // Keys in the order task files use.
  const add = (n: string, s: Omit<GuessedSuite, 'name'>) =>
    suites.push({
      name: n,
      language: s.language,
      command: s.command,
      format: s.format,
      ...(s.result_file ? { result_file: s.result_file } : {}),
      test_files: s.test_files,
    });
  [...groupBy(js, (f) => nearest(repo, f, ['package.json']) ?? '')].forEach(([dir, files], i) => {
    const g = jsSuite(
      repo,
      dir,
      files.filter((f) => f !== 'package.json'),
      notes,
      Boolean(o.narrow),
    );
    add(name('js', dir, i), g.suite);
    const inst = g.install;
    if (inst) {
      if (inst.setup && !installs.includes(inst.setup)) {
        installs.push(inst.setup);
        notes.push(
          `the install fetches the package manager into ${TOOLS_DIR}/ (a directory git ignores) and every step runs it from there: the suites need no network`,
        );
      }
      const step = inst.dir ? `(${inDir(inst.dir, inst.command)})` : inst.command;
      if (!installs.includes(step)) installs.push(step); // packages of one workspace share it
    }
  });
  pySuites(repo, py, notes, Boolean(o.narrow)).forEach((g, i) => {
    add(name('py', g.dir, i), g.suite);
    if (g.install) installs.push(g.dir ? `(${g.install})` : g.install);
  });
  // Test files that are not code (fixtures, snapshots, data) are still the PR's tests: the
  // verifier must restore them, so they go to the test_files of the suite they belong to.
  for (const f of testFiles) {
    if (
      suites.some((s) => s.test_files.some((t) => f === t || (t.endsWith('/') && f.startsWith(t))))
    )
      continue;
    const owner =
      suites.find((s) => {
        const dir = /^cd (\S+) && /.exec(s.command)?.[1];
        return dir !== undefined && f.startsWith(`${dir}/`);
      }) ?? suites[0];
    if (!owner) continue;
    owner.test_files = [...new Set([...owner.test_files, testRoot(f)])].sort();
  }
  if (suites.length === 0) notes.push('no test suite could be guessed: write test_suites by hand');
  if (installs.length) notes.push(`install command guessed: ${installs.join(' && ')}`);
  return { suites, install_command: installs.length ? installs.join(' && ') : null, notes };
}
