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
}

const SCRIPT_RUNNERS = /^(npm|pnpm|yarn|bun)$/;

/** Every runner invocation a script makes, in order, following `npm run <script>`. */
export function invocations(
  scripts: Record<string, string>,
  name = 'test',
  seen: Set<string> = new Set(),
): Invocation[] {
  const script = scripts[name];
  if (script === undefined || seen.has(name)) return [];
  seen.add(name);
  const out: Invocation[] = [];
  for (const segment of script.split(/&&|\|\||;|\|/)) {
    const words = segment.trim().split(/\s+/).filter(Boolean);
    for (let i = 0; i < words.length; i++) {
      const w = words[i].replace(/^.*\/node_modules\/\.bin\//, '');
      if (SCRIPT_RUNNERS.test(w)) {
        // npm run x / npm run-script x / npm test / pnpm x / yarn x / yarn run x
        let next = words[i + 1];
        if (next === 'run' || next === 'run-script') next = words[i + 2];
        if (next === 'test' && w === 'npm') next = 'test';
        if (next && next in scripts) out.push(...invocations(scripts, next, seen));
        break;
      }
      if (w === 'node' && words.slice(i + 1).includes('--test')) {
        out.push({
          runner: 'node',
          args: words.slice(i + 1).filter((a) => a !== '--test'),
          script: name,
        });
        break;
      }
      if ((RUNNERS as readonly string[]).includes(w) && w !== 'node') {
        out.push({ runner: w as Runner, args: words.slice(i + 1), script: name });
        break;
      }
    }
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
