// `nanobench export --format harbor DATASET OUT/`: each PR task as a Harbor task, so a NanoBench
// dataset runs on Harbor's own infrastructure (its cloud sandboxes) when one machine is not
// enough:
//   environment/  the task's own Dockerfile (or a base image with node) + the repository at
//                 base_commit copied to /app + the install command, run at build time
//   instruction.md  the problem statement
//   tests/        test.sh -> tests/nanobench/grade.mjs: restores the test files as the PR has them
//                 (tests/files, tests/spec.json), runs the suites, reads per-test outcomes with
//                 NanoBench's own parsers (copied from dist/verify/parsers) and writes
//                 /logs/verifier/reward.json: the share of fail_to_pass tests that pass, 0 when a
//                 pass_to_pass test fails (plus both shares as metrics)
//   solution/     solve.sh copies the golden change's files over /app (no git or patch needed)
// What does not travel: NanoBench's label rules (required files, symbols), hardening of test
// infrastructure beyond the test files, and the integrity audit; Harbor's verifier is the judge.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { environmentPath, type LoadedTask } from '../task/load.js';
import type { ResolvedTask } from '../task/patches.js';
import { containedPath } from '../util/contained-path.js';
import { UserError } from '../util/errors.js';
import { patchPaths, protectedTestPaths } from '../verify/restore.js';

/** The base of exported tasks that declare no environment: the grader needs node. */
export const DEFAULT_EXPORT_BASE = 'docker.io/library/node:22-bookworm';
const PARSERS = fileURLToPath(new URL('../verify/parsers/', import.meta.url));

const toml = (v: unknown): string =>
  typeof v === 'string'
    ? JSON.stringify(v)
    : Array.isArray(v)
      ? `[${v.map(toml).join(', ')}]`
      : String(v);

function taskToml(t: ResolvedTask): string {
  const env = t.environment;
  return [
    'version = "1.0"',
    '',
    '[metadata]',
    `author_name = ${toml(t.contributor)}`,
    `difficulty = ${toml(t.complexity_tier <= 1 ? 'easy' : t.complexity_tier <= 2 ? 'medium' : 'hard')}`,
    `category = ${toml(t.task_type)}`,
    `tags = ${toml([...t.languages, t.domain])}`,
    `nanobench_task_id = ${toml(t.task_id)}`,
    `repo = ${toml(t.repo)}`,
    `base_commit = ${toml(t.base_commit)}`,
    ...(t.pr_url ? [`pr_url = ${toml(t.pr_url)}`] : []),
    `required_files = ${toml(t.required_files)}`,
    '',
    '[verifier]',
    `timeout_sec = ${t.timeouts.verifier_sec.toFixed(1)}`,
    '',
    '[agent]',
    `timeout_sec = ${t.timeouts.agent_sec.toFixed(1)}`,
    '',
    '[environment]',
    'build_timeout_sec = 1800.0',
    ...(env?.cpus ? [`cpus = ${env.cpus}`] : []),
    ...(env?.memory_mb ? [`memory_mb = ${env.memory_mb}`] : []),
    '',
  ].join('\n');
}

/** The repository at a commit, as plain files (no .git). */
function archive(clone: string, commit: string, dest: string): void {
  mkdirSync(dest, { recursive: true });
  execFileSync(
    'sh',
    ['-c', `git --git-dir="$0" archive "$1" | tar -x -C "$2"`, clone, commit, dest],
    {
      stdio: 'pipe',
    },
  );
}

function applyPatch(dir: string, patch: string): void {
  if (!patch.trim()) return;
  execFileSync('git', ['apply', '--whitespace=nowarn', '-'], {
    cwd: dir,
    input: patch,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

/** Copies `paths` (files or directories) of `from` into `to`; returns those `from` lacks. */
function copyPaths(from: string, to: string, paths: string[]): string[] {
  const missing: string[] = [];
  for (const p of paths) {
    // A symlink of the repository on the way would copy what it points at into the task (the
    // path's own link is copied as a link).
    const src = containedPath(
      from,
      p,
      (why) => new UserError('NOT_EXPORTABLE', `cannot export "${p}": it ${why}`),
    );
    if (!existsSync(src) && !isLink(src)) {
      missing.push(p);
      continue;
    }
    mkdirSync(dirname(join(to, p)), { recursive: true });
    cpSync(src, join(to, p), { recursive: true, verbatimSymlinks: true });
  }
  return missing;
}

const isLink = (p: string) => {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
};

function dockerfile(lt: LoadedTask<ResolvedTask>, envDir: string, base: string): string {
  const t = lt.task;
  let head: string;
  if (t.environment?.dockerfile) {
    // The task's own environment: its build context comes along, its Dockerfile is the start.
    const file = environmentPath(t, lt.file, lt.datasetDir, 'dockerfile')!;
    const context = environmentPath(t, lt.file, lt.datasetDir, 'context') ?? dirname(file);
    for (const e of readdirSync(context))
      if (e !== 'repo') cpSync(join(context, e), join(envDir, e), { recursive: true });
    head = readFileSync(file, 'utf8').trimEnd();
  } else {
    const image = t.environment?.image ?? base;
    head = [
      '# Offline, or for another toolchain: --build-arg BASE_IMAGE=<an image with node>',
      `ARG BASE_IMAGE=${image}`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: a Dockerfile variable, not ours
      'FROM ${BASE_IMAGE}',
    ].join('\n');
  }
  return [
    head,
    '',
    '# The repository at base_commit, prepared as NanoBench prepares it (exported by nanobench export).',
    'WORKDIR /app',
    'COPY repo/ /app/',
    ...(t.install_command ? [`RUN ${t.install_command}`] : []),
    '',
  ].join('\n');
}

const TEST_SH = `#!/bin/bash
# Exported by nanobench export: restores the task's test files as the PR has them, runs its
# suites, and writes the share of fail_to_pass tests that pass (0 if a pass_to_pass test fails)
# to /logs/verifier/reward.json. Needs node in the image.
cd /app
exec node /tests/nanobench/grade.mjs /tests/spec.json /logs/verifier/reward.json
`;

const GRADE_MJS = `// Exported by nanobench export. Plain JavaScript for any Node >= 18; the parsers are NanoBench's.
// Dynamic imports: this text lives in a TypeScript string, where static ones would read as ours.
const { spawnSync } = await import('node:child_process');
const { cpSync, existsSync, readFileSync, rmSync, writeFileSync } = await import('node:fs');
const { dirname, join } = await import('node:path');
const { parseSuite } = await import('./parsers/index.js');

const [specFile, out] = process.argv.slice(2);
const spec = JSON.parse(readFileSync(specFile, 'utf8'));
const ws = process.cwd();
// The test files as the PR has them, whatever the agent did to them.
for (const p of spec.test_paths) rmSync(join(ws, p), { recursive: true, force: true });
const files = join(dirname(specFile), 'files');
if (existsSync(files)) cpSync(files, ws, { recursive: true, verbatimSymlinks: true });
const outcomes = new Map();
const started = Date.now();
for (const s of spec.suites) {
  if (s.result_file) rmSync(join(ws, s.result_file), { force: true });
  const left = Math.max(1, spec.verifier_sec - (Date.now() - started) / 1000);
  const r = spawnSync('/bin/sh', ['-c', s.command], {
    cwd: ws,
    encoding: 'utf8',
    timeout: left * 1000,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, CI: '1', NO_COLOR: '1', TZ: 'UTC', PYTHONDONTWRITEBYTECODE: '1' },
  });
  const rf = s.result_file && existsSync(join(ws, s.result_file)) ? readFileSync(join(ws, s.result_file), 'utf8') : undefined;
  const p = parseSuite(s.format, { stdout: r.stdout ?? '', stderr: r.stderr ?? '', exitCode: r.status, resultFile: rf, workspace: ws });
  for (const t of p.tests) outcomes.set(s.name + '::' + t.id, t.outcome);
  console.log('suite ' + s.name + ': exit ' + r.status + ', ' + p.tests.length + ' test(s) reported');
  if (r.status !== 0) process.stdout.write((r.stderr ?? '').slice(-4000));
}
const share = (ids) => (ids.length ? ids.filter((id) => outcomes.get(id) === 'passed').length / ids.length : 1);
const f2p = share(spec.fail_to_pass);
const p2p = share(spec.pass_to_pass);
const reward = p2p === 1 ? f2p : 0;
for (const id of [...spec.fail_to_pass, ...spec.pass_to_pass])
  if (outcomes.get(id) !== 'passed') console.log('FAILED ' + id);
console.log('reward ' + reward + ' (fail_to_pass ' + f2p + ', pass_to_pass ' + p2p + ')');
writeFileSync(out, JSON.stringify({ reward, fail_to_pass: f2p, pass_to_pass: p2p }) + '\\n');
`;

const SOLVE_SH = `#!/bin/bash
# Exported by nanobench export: the golden change, as the files it leaves (no git or patch needed).
set -e
while IFS= read -r p; do [ -n "$p" ] && rm -rf "/app/$p"; done < /solution/removed.txt
# New modification times (cp -R, not -a): build steps must see the sources as newer than what
# the image built from them.
if [ -d /solution/files ]; then cp -R /solution/files/. /app/; fi
`;

function writeExecutable(file: string, text: string): void {
  writeFileSync(file, text);
  chmodSync(file, 0o755);
}

export interface ExportOptions {
  /** Base image of tasks without an environment (default: node:22-bookworm). */
  baseImage?: string;
  /** The bare clone holding a task's commits. */
  cloneOf: (lt: LoadedTask<ResolvedTask>) => Promise<string>;
}

/** Writes one task as OUT/<task_id>/; returns that directory. */
export async function exportHarborTask(
  lt: LoadedTask<ResolvedTask>,
  out: string,
  o: ExportOptions,
): Promise<string> {
  const t = lt.task;
  if (!existsSync(join(PARSERS, 'index.js')))
    throw new UserError(
      'NOT_BUILT',
      `export copies NanoBench's built parsers (${PARSERS}): run npm run build`,
    );
  if (t.fail_to_pass.length === 0)
    throw new UserError(
      'NOT_EXPORTABLE',
      `${lt.file}: task ${t.task_id} records no fail_to_pass tests; run nanobench validate --write first`,
    );
  const dir = join(out, t.task_id);
  rmSync(dir, { recursive: true, force: true });
  const envDir = join(dir, 'environment');
  mkdirSync(envDir, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'nb-export-'));
  try {
    const clone = await o.cloneOf(lt);
    archive(clone, t.base_commit, join(envDir, 'repo'));
    writeFileSync(join(dir, 'task.toml'), taskToml(t));
    writeFileSync(join(dir, 'instruction.md'), `${t.problem_statement.trimEnd()}\n`);
    writeFileSync(
      join(envDir, 'Dockerfile'),
      dockerfile(lt, envDir, o.baseImage ?? DEFAULT_EXPORT_BASE),
    );

    // tests/: the test paths as base + test_patch leave them.
    const tested = join(work, 'tested');
    archive(clone, t.base_commit, tested);
    applyPatch(tested, t.test_patch);
    const testPaths = protectedTestPaths(t);
    const tests = join(dir, 'tests');
    mkdirSync(join(tests, 'nanobench'), { recursive: true });
    copyPaths(tested, join(tests, 'files'), testPaths);
    writeFileSync(
      join(tests, 'spec.json'),
      `${JSON.stringify(
        {
          task_id: t.task_id,
          suites: t.test_suites.map((s) => ({
            name: s.name,
            command: s.command,
            format: s.format,
            ...(s.result_file && { result_file: s.result_file }),
          })),
          test_paths: testPaths,
          fail_to_pass: t.fail_to_pass,
          pass_to_pass: t.pass_to_pass,
          verifier_sec: t.timeouts.verifier_sec,
        },
        null,
        2,
      )}\n`,
    );
    writeExecutable(join(tests, 'test.sh'), TEST_SH);
    writeFileSync(join(tests, 'nanobench', 'grade.mjs'), GRADE_MJS);
    cpSync(PARSERS, join(tests, 'nanobench', 'parsers'), {
      recursive: true,
      filter: (src) => !src.endsWith('.d.ts') && !src.endsWith('.map'),
    });
    writeFileSync(join(tests, 'nanobench', 'package.json'), '{ "type": "module" }\n');

    // solution/: the files the golden patch leaves, and the ones it removes.
    const solved = join(work, 'solved');
    archive(clone, t.base_commit, solved);
    applyPatch(solved, t.ground_truth_patch);
    const changed = patchPaths(t.ground_truth_patch);
    const sol = join(dir, 'solution');
    mkdirSync(sol, { recursive: true });
    const removed = copyPaths(solved, join(sol, 'files'), changed);
    writeFileSync(join(sol, 'removed.txt'), removed.map((p) => `${p}\n`).join(''));
    writeFileSync(join(sol, 'golden.patch'), t.ground_truth_patch);
    writeExecutable(join(sol, 'solve.sh'), SOLVE_SH);
    return dir;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
