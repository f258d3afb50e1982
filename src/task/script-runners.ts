// Reading a package's test script as a developer would: which runner invocations it makes
// (following `npm run x` into other scripts), which of them runs the PR's tests, and what its
// arguments are (options vs. positional filters and files). Real scripts chain several
// invocations (`lint && vitest --run typecheck && vitest run`); taking the first one ran only the
// tests matching "typecheck" on a real PR, so every invocation is read and the one that reaches
// the PR's test files wins.

export const RUNNERS = ['vitest', 'jest', 'mocha', 'tape', 'tap', 'node'] as const;
export type Runner = (typeof RUNNERS)[number];

export interface Invocation {
  runner: Runner;
  /** The words after the runner's name (node: after `--test` is removed). */
  args: string[];
  /** The script it was found in, e.g. "test" or "test:unit". */
  script: string;
  /**
   * Environment the script sets for the runner (`NODE_ENV=test mocha`, `cross-env TZ=UTC jest`):
   * the `NAME=value` words before it, as written. Tests may depend on them.
   */
  env: string[];
  /**
   * What the scripts do before it on the way there, in order: other scripts they call (and
   * the `pre<name>` hook of every script entered) and plain commands (build-steps.ts picks the
   * ones that build).
   */
  before: Step[];
}

/** A step of a script chain that is not a runner invocation. */
export type Step =
  | { kind: 'script'; name: string; hook?: boolean }
  | { kind: 'command'; words: string[] };

const SCRIPT_RUNNERS = /^(npm|pnpm|yarn|bun)$/;
/** `NAME=value`, as the shell and cross-env read it before a command. */
const ENV_ASSIGNMENT = /^[A-Za-z_]\w*=/;

/** A script's commands, split where the shell would run the next one. */
export const segments = (script: string): string[][] =>
  script
    .split(/&&|\|\||;|\|/)
    .map((segment) => segment.trim().split(/\s+/).filter(Boolean))
    .filter((words) => words.length > 0);

/** The script a package-manager word calls (`npm run x`, `yarn x`, `npm test`), if it is one. */
export function calledScript(words: string[], i: number, scripts: Record<string, string>) {
  let next = words[i + 1];
  if (next === 'run' || next === 'run-script') next = words[i + 2];
  return next !== undefined && Object.hasOwn(scripts, next) ? next : undefined;
}

/** Every runner invocation a script makes, in order, following `npm run <script>`. */
export function invocations(
  scripts: Record<string, string>,
  name = 'test',
  seen: Set<string> = new Set(),
  before: Step[] = [],
  /** Set by the scripts on the way here (`cross-env NODE_ENV=test npm run unit`). */
  inherited: string[] = [],
): Invocation[] {
  const script = scripts[name];
  if (script === undefined || seen.has(name)) return [];
  seen.add(name);
  const out: Invocation[] = [];
  // npm (and Yarn 1) run `pre<name>` before every script they run.
  const local: Step[] = Object.hasOwn(scripts, `pre${name}`)
    ? [{ kind: 'script', name: `pre${name}`, hook: true }]
    : [];
  const reached = () => [...before, ...local];
  for (const words of segments(script)) {
    let step: Step | undefined = { kind: 'command', words };
    const envBefore = (i: number) => [
      ...inherited,
      ...words.slice(0, i).filter((w) => ENV_ASSIGNMENT.test(w)),
    ];
    for (let i = 0; i < words.length; i++) {
      const w = words[i].replace(/^.*\/node_modules\/\.bin\//, '');
      if (SCRIPT_RUNNERS.test(w)) {
        // npm run x / npm run-script x / npm test / pnpm x / yarn x / yarn run x
        const next = calledScript(words, i, scripts);
        if (next === undefined) break; // a binary through the package manager: `yarn tsc`
        const sub = invocations(scripts, next, seen, reached(), envBefore(i));
        out.push(...sub);
        step = sub.length ? undefined : { kind: 'script', name: next };
        break;
      }
      if (w === 'node' && words.slice(i + 1).includes('--test')) {
        const args = words.slice(i + 1).filter((a) => a !== '--test');
        out.push({ runner: 'node', args, script: name, env: envBefore(i), before: reached() });
        step = undefined;
        break;
      }
      if ((RUNNERS as readonly string[]).includes(w) && w !== 'node') {
        out.push({
          runner: w as Runner,
          args: words.slice(i + 1),
          script: name,
          env: envBefore(i),
          before: reached(),
        });
        step = undefined;
        break;
      }
    }
    if (step) local.push(step);
  }
  return out;
}

/** Options that take a value as the next word, per runner (anything else is a flag). */
const VALUE_OPTIONS: Record<Runner, string[]> = {
  vitest: [
    '-c',
    '--config',
    '-r',
    '--root',
    '--dir',
    '--project',
    '--environment',
    '--pool',
    '--testTimeout',
    '--reporter',
    '--outputFile',
    '--shard',
    '--maxWorkers',
    '--exclude',
    '-t',
    '--testNamePattern',
    '--mode',
  ],
  jest: [
    '-c',
    '--config',
    '--testPathPattern',
    '--testPathPatterns',
    '-t',
    '--testNamePattern',
    '-w',
    '--maxWorkers',
    '--selectProjects',
    '--rootDir',
    '--roots',
    '--testTimeout',
    '--outputFile',
    '--reporters',
    '--shard',
    '--testEnvironment',
    '--setupFiles',
    '--setupFilesAfterEach',
  ],
  mocha: [
    '-r',
    '--require',
    '-u',
    '--ui',
    '-t',
    '--timeout',
    '-R',
    '--reporter',
    '-O',
    '--reporter-option',
    '-g',
    '--grep',
    '--fgrep',
    '--file',
    '--ignore',
    '--exclude',
    '--extension',
    '--config',
    '--package',
    '--spec',
    '-s',
    '--slow',
    '--retries',
    '-j',
    '--jobs',
    '--node-option',
    '-n',
  ],
  tap: [
    '-t',
    '--timeout',
    '-R',
    '--reporter',
    '--node-arg',
    '--test-arg',
    '-j',
    '--jobs',
    '-g',
    '--grep',
    '--before',
    '--after',
    '--coverage-map',
    '--test-env',
    '--test-ignore',
    '--test-regex',
  ],
  tape: ['-r', '--require', '-i', '--ignore'],
  node: [
    '--test-reporter',
    '--test-reporter-destination',
    '--test-name-pattern',
    '-r',
    '--require',
    '--import',
    '--loader',
    '--test-concurrency',
    '--test-timeout',
    '--test-skip-pattern',
  ],
};

/** Words that are positional arguments (files, globs, directories, name filters). */
export function positionals(runner: Runner, args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.startsWith('-')) {
      if (!a.includes('=') && VALUE_OPTIONS[runner].includes(a)) i++;
      continue;
    }
    if (runner === 'vitest' && ['run', 'watch', 'dev', 'related'].includes(a) && i === 0) continue;
    out.push(a.replace(/^["']|["']$/g, ''));
  }
  return out;
}

/** The arguments without their positionals: options (and their values) only. */
export function optionsOnly(runner: Runner, args: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith('-')) continue;
    out.push(a);
    if (!a.includes('=') && VALUE_OPTIONS[runner].includes(a) && i + 1 < args.length)
      out.push(args[++i]);
  }
  return out;
}

/** A shell glob as a regular expression over "/"-separated paths. */
function globRegex(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      re += glob[i + 2] === '/' ? '(?:.*/)?' : '.*';
      i += glob[i + 2] === '/' ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '{') re += '(?:';
    else if (c === '}') re += ')';
    else if (c === ',') re += '|';
    else re += c.replace(/[.+^$()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^(?:\\./)?${re}$`);
}

/** Does a positional argument select this file (relative to the package)? */
export function selects(runner: Runner, arg: string, file: string): boolean {
  const p = arg.replace(/^\.\//, '').replace(/\/$/, '');
  if (file === p || file.startsWith(`${p}/`)) return true;
  if (/[*?{]/.test(p)) return globRegex(p).test(file);
  // vitest and jest take name filters: a substring (jest: a regular expression) of the path.
  if (runner === 'vitest' || runner === 'jest') return file.includes(p);
  return false;
}

/**
 * The invocation that runs the PR's tests: the first one whose positionals are empty or select
 * at least one of `files` (package-relative); otherwise none. Without files to go by, the
 * first one without filters. `vitest typecheck` runs type tests only, never the PR's.
 */
export function chooseInvocation(list: Invocation[], files: string[]): Invocation | undefined {
  const usable = list.filter((inv) => !(inv.runner === 'vitest' && inv.args[0] === 'typecheck'));
  if (files.length === 0)
    return usable.find((inv) => positionals(inv.runner, inv.args).length === 0) ?? usable[0];
  return usable.find((inv) => {
    const pos = positionals(inv.runner, inv.args);
    return pos.length === 0 || pos.some((p) => files.some((f) => selects(inv.runner, p, f)));
  });
}

/** Directories whose files support tests rather than being tests themselves. */
const SUPPORT_DIRS =
  /(^|\/)(fixtures?|__fixtures__|helpers?|support|utils?|__mocks__|mocks?|__snapshots__|snapshots?|data|assets)\//;
const JS_CODE = /\.(?:[cm]?[jt]sx?)$/;

/** The PR's test files a runner can be pointed at (not fixtures, helpers, snapshots, configs). */
export function runnableTestFiles(
  runner: Runner | 'pytest' | 'unittest',
  files: string[],
): string[] {
  return files.filter((f) => {
    const name = f.split('/').pop() ?? '';
    if (SUPPORT_DIRS.test(f)) return false;
    if (runner === 'pytest') return /^test_.+\.py$|_test\.py$/.test(name);
    if (runner === 'unittest') return /^test.*\.py$/.test(name);
    return JS_CODE.test(name) && !/\.d\.[cm]?ts$/.test(name) && !/config\./.test(name);
  });
}
