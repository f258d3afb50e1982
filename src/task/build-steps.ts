// The steps a package's test script takes before its runner that build what the tests import
// (`yarn build && mocha`, `tsc -p . && node --test`, an npm `pretest`): a suite that runs only
// the runner finds no built files. Seen mining kpdecker/jsdiff: its tests import `libesm/`, which
// `yarn build` writes, and every guessed suite failed with ERR_MODULE_NOT_FOUND. Lint and check
// steps are left out: they build nothing and fail for reasons of their own.
import { calledScript, type Step, segments } from './script-runners.js';

export type PackageManager = { kind: 'npm' } | { kind: 'yarn' | 'pnpm'; version: string };

const major = (version: string) => Number(/(\d+)/.exec(version)?.[1] ?? 1);
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Where a task's install puts the package manager its steps run: a directory of the workspace
 * that ignores itself (its .gitignore says `*`), so it is in no tree, not the baseline's, not
 * the agent's diff, and git shows it to no one as the repository's.
 */
export const TOOLS_DIR = '.nanobench-tools';

type Fetched = Exclude<PackageManager, { kind: 'npm' }>;

/**
 * The npm package of a package manager. The npm package `yarn` stops at 1.x: Yarn 2 and later
 * are published as @yarnpkg/cli-dist (`npx yarn@4.12.0` fails with "No matching version": seen
 * mining jsdiff).
 */
function toolPackage(pm: Fetched): string {
  if (pm.kind === 'pnpm') return `pnpm@${pm.version}`;
  return major(pm.version) >= 2 ? `@yarnpkg/cli-dist@${pm.version}` : `yarn@${pm.version}`;
}

const toolDir = (pm: Fetched) => `${TOOLS_DIR}/${pm.kind}-${pm.version.replace(/[^\w.-]+/g, '_')}`;
const shellWord = (s: string) => (/^[\w@./:+=-]+$/.test(s) ? s : quote(s));

/**
 * The statement that puts the fetched package manager first on PATH, for commands run from
 * `cwd` (a directory of the workspace, '' for its root: from a suite's `cd packages/x` it is
 * ../../). On PATH, not called by path: pnpm's scripts call `pnpm` and find it there.
 */
export function pmPath(pm: PackageManager, cwd = ''): string | undefined {
  if (pm.kind === 'npm') return undefined;
  const up = cwd
    .split('/')
    .filter(Boolean)
    .map(() => '../')
    .join('');
  return `PATH="$PWD/${up}${toolDir(pm)}/node_modules/.bin:$PATH"`;
}

/**
 * The install's first steps when the package manager is pnpm or Yarn (only npm comes with
 * node): fetch it once, from the workspace root, into TOOLS_DIR, and put it on PATH. The install
 * runs with network and becomes the cached environment; the suites' build steps put the same
 * copy on PATH (pmPath) and need none. A fetch when the suite runs (`npx --yes pnpm@V run
 * build`) passed validate on this machine but cannot reach the registry from a run's sandbox:
 * every trial was the task's infra error (found mining kpdecker/jsdiff#700).
 */
export function pmSetup(pm: PackageManager): string | undefined {
  if (pm.kind === 'npm') return undefined;
  return [
    `mkdir -p ${TOOLS_DIR}`,
    `echo '*' > ${TOOLS_DIR}/.gitignore`,
    `npm install --no-save --no-audit --no-fund --prefix ${shellWord(toolDir(pm))} ${shellWord(toolPackage(pm))}`,
    pmPath(pm),
  ].join(' && ');
}

/** The package manager's command, for the install and the build steps alike (pmPath first). */
export function pmPrefix(pm: PackageManager): string {
  return pm.kind;
}

/** `<pm> run <script>` through the package manager the install uses. */
export function runScript(pm: PackageManager, name: string): string {
  return `${pmPrefix(pm)} run ${name}`;
}

/** A plain command of a script, run with the package's binaries on PATH. */
export function execCommand(pm: PackageManager, words: string[]): string {
  const cmd = words.join(' ');
  // Yarn 1 has no `exec` of its own; npm's gives the same node_modules/.bin.
  if (pm.kind === 'npm' || (pm.kind === 'yarn' && major(pm.version) < 2))
    return `npm exec -c ${quote(cmd)}`;
  return `${pmPrefix(pm)} exec ${cmd}`;
}

const SCRIPT_PMS = /^(npm|pnpm|yarn|bun)$/;
const LINT_NAME =
  /^(lint|linter|format|fmt|prettier|eslint|stylelint|check|typecheck|tsd|attw|publint|spellcheck)$/;
const BUILD_NAME = /^(build|compile|generate\w*|gen|prepare\w*|pretest|bundle|transpile|dist)$/;
const LINT_TOOL =
  /^(eslint|prettier|tslint|stylelint|biome|oxlint|xo|standard|tsd|attw|publint|dprint|cspell|markdownlint|knip|mocha|jest|vitest|tap|tape|c8|nyc)$/;
const BUILD_TOOL =
  /^(tsc|rollup|babel|esbuild|webpack|tsup|swc|vite|unbuild|microbundle|ncc|parcel|pkgroll|bunchee|uglifyjs|terser|node-gyp|cmake-js|tsc-alias|peggy|pegjs|antlr4ts|protoc)$/;

/** The tool a plain command runs: past env assignments, cross-env, npx and `yarn <bin>`. */
function tool(words: string[]): string {
  let i = 0;
  for (; i < words.length; i++) {
    const w = words[i].replace(/^.*\/node_modules\/\.bin\//, '');
    if (/^\w+=/.test(w) || ['cross-env', 'npx', 'exec', 'run', 'dlx', '--'].includes(w)) continue;
    if (SCRIPT_PMS.test(w)) continue;
    return w;
  }
  return '';
}

const nameWords = (name: string) => name.split(/[:\-_.]/);
const lintCommand = (words: string[]) =>
  LINT_TOOL.test(tool(words)) || (tool(words) === 'tsc' && words.includes('--noEmit'));
/** vite and parcel build only when told to (alone they start a server that never ends). */
const buildCommand = (words: string[]) =>
  BUILD_TOOL.test(tool(words)) &&
  !lintCommand(words) &&
  (!['vite', 'parcel'].includes(tool(words)) || words.includes('build'));

interface Ctx {
  scripts: Record<string, string>;
  pm: PackageManager;
  /** The commands to run, each with the script text it runs (to see what it writes). */
  commands: { command: string; text: string }[];
  skipped: string[];
  seen: Set<string>;
  /** Does the package manager run `pre<name>` hooks (npm, Yarn 1)? */
  hooks: boolean;
}

/** A script called on the way to the runner: is it lint, a build, or something else? */
function classify(ctx: Ctx, name: string, depth = 0): 'lint' | 'build' | 'other' {
  const words = nameWords(name);
  if (words.some((w) => LINT_NAME.test(w))) return 'lint';
  const parts = segments(ctx.scripts[name] ?? '');
  if (parts.length > 0 && parts.every(lintCommand)) return 'lint';
  if (words.some((w) => BUILD_NAME.test(w))) return 'build';
  const builds = parts.some((p) => {
    if (buildCommand(p)) return true;
    const i = p.findIndex((w) => SCRIPT_PMS.test(w));
    const sub = i >= 0 ? calledScript(p, i, ctx.scripts) : undefined;
    return sub !== undefined && depth < 8 && classify(ctx, sub, depth + 1) === 'build';
  });
  return builds ? 'build' : 'other';
}

/**
 * Adds a build script's commands: the whole script when it is one leaf of plain non-lint
 * commands, else its parts one by one, lint and test steps left out.
 */
function addBuild(ctx: Ctx, name: string): void {
  if (ctx.seen.has(name)) return;
  ctx.seen.add(name);
  const parts = segments(ctx.scripts[name] ?? '');
  const callOf = (p: string[]) => {
    const i = p.findIndex((w) => SCRIPT_PMS.test(w));
    return i >= 0 ? calledScript(p, i, ctx.scripts) : undefined;
  };
  if (parts.every((p) => callOf(p) === undefined && !lintCommand(p))) {
    ctx.commands.push({ command: runScript(ctx.pm, name), text: ctx.scripts[name] ?? '' });
    return;
  }
  // Run part by part, the script's own hook is ours to run.
  if (ctx.hooks && Object.hasOwn(ctx.scripts, `pre${name}`)) addBuild(ctx, `pre${name}`);
  for (const p of parts) {
    const sub = callOf(p);
    if (sub !== undefined) {
      if (classify(ctx, sub) === 'lint') ctx.skipped.push(sub);
      else addBuild(ctx, sub);
    } else if (lintCommand(p)) ctx.skipped.push(p.join(' '));
    else ctx.commands.push({ command: execCommand(ctx.pm, p), text: p.join(' ') });
  }
}

export interface BuildPlan {
  /** Shell commands to run before the runner, in order. */
  commands: string[];
  /** Lint and check steps of the chain that were left out. */
  skipped: string[];
  /** Build commands left out: they write none of the directories the tests import. */
  unneeded: string[];
}

/** Does a command's script text name the directory (`--outDir libesm`, `-d lib/`)? */
const names = (text: string, dir: string) =>
  new RegExp(`(^|[\\s'"=/])${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(/|[\\s'"]|$)`).test(text);

/**
 * The commands among `before` (an invocation's chain, script-runners.ts) that build: scripts
 * named like a build or running a build tool, plain build-tool commands, and the `pre<name>`
 * hooks when the package manager runs them (npm, Yarn 1). When some of them name a directory in
 * `imported` (what the PR's tests import that git does not hold), only those.
 */
export function buildPlan(
  scripts: Record<string, string>,
  before: Step[],
  pm: PackageManager,
  imported: string[] = [],
): BuildPlan {
  const hooks = pm.kind === 'npm' || (pm.kind === 'yarn' && major(pm.version) < 2);
  const ctx: Ctx = { scripts, pm, commands: [], skipped: [], seen: new Set(), hooks };
  for (const step of before) {
    if (step.kind === 'command') {
      if (buildCommand(step.words))
        ctx.commands.push({ command: execCommand(pm, step.words), text: step.words.join(' ') });
      else if (lintCommand(step.words)) ctx.skipped.push(step.words.join(' '));
      continue;
    }
    if (step.hook && !hooks) continue;
    const kind = classify(ctx, step.name);
    // A hook runs whatever it says: a pretest that is not lint is taken as a build.
    if (kind === 'build' || (step.hook && kind === 'other')) addBuild(ctx, step.name);
    else if (kind === 'lint') ctx.skipped.push(step.name);
  }
  // Tests that import a directory only one of the steps writes need that step alone (a bundle,
  // a minified copy and a CommonJS twin are minutes of work the tests never read).
  const writes = ctx.commands.filter((c) => imported.some((d) => names(c.text, d)));
  const keep = writes.length ? writes : ctx.commands;
  return {
    commands: keep.map((c) => c.command),
    skipped: ctx.skipped,
    unneeded: ctx.commands.filter((c) => !keep.includes(c)).map((c) => c.command),
  };
}
