// `nanobench task ...`: curating the tasks of a dataset (import, new, check here; mine and the
// lifecycle commands in their own modules).
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { checkImport } from '../gates/import-check.js';
import { type CheckResult, checkHarborTask, checkTargets } from '../harbor/check.js';
import { hostGrader } from '../harbor/judge/grader.js';
import { type CaseResult, readGraderTests, runGraderTests } from '../harbor/judge/grader-tests.js';
import { type ImportResult, importFrom, openRepo, scaffoldTask } from '../task/import.js';
import { findPlaceholders } from '../task/placeholders.js';
import { UserError } from '../util/errors.js';
import { writeFailure, writeUserFile } from '../util/write.js';
import { registerMine } from './mine.js';
import type { Io } from './progress.js';
import { cacheDirOf } from './run.js';
import { registerLifecycle } from './task-lifecycle.js';

function writeNew(file: string, raw: Record<string, unknown>, force: boolean): void {
  if (existsSync(file) && !force)
    throw new UserError('EXISTS', `${file} already exists (add --force to overwrite it)`);
  try {
    mkdirSync(dirname(resolve(file)), { recursive: true });
  } catch (e) {
    throw new UserError('CANNOT_WRITE', `${file}: cannot write the task file (${writeFailure(e)})`);
  }
  writeUserFile(file, `${JSON.stringify(raw, null, 2)}\n`, 'task file');
}

function todoList(raw: Record<string, unknown>): string {
  const fields = [...new Set(findPlaceholders(raw).map((p) => p.path.split('.')[0]))];
  return fields.length ? `fill in: ${fields.join(', ')} (the TODO(curator) placeholders)` : '';
}

function checkText(
  id: string,
  dir: string,
  checks: CheckResult[],
  graders: CaseResult[] | undefined,
  valid: boolean,
): string {
  const lines = [`${id}  ${dir}`];
  for (const c of checks) {
    lines.push(`  ${c.ok ? 'PASS' : 'FAIL'}  ${c.check.padEnd(12)} ${c.reason}`);
    if (c.fix) lines.push(`        how to fix: ${c.fix}`);
  }
  for (const g of graders ?? [])
    lines.push(
      `  ${g.ok ? 'PASS' : 'FAIL'}  grader       ${g.grader}.py: ${g.why} (expected ${g.expected}, got ${g.got ?? 'no grade'}${g.ok ? '' : `: ${g.reason}`})`,
    );
  const failed: string[] = checks.filter((c) => !c.ok).map((c) => c.check);
  if (graders?.some((g) => !g.ok)) failed.push('grader cases');
  lines.push(
    valid ? '  => valid (structural)' : `  => not valid (failed: ${failed.join(', ')})`,
    '',
  );
  return lines.join('\n');
}

export function registerTask(
  program: Command,
  io: Io,
  setExit: (code: number) => void = () => {},
): void {
  const task = program.command('task'); // its description, naming every subcommand, is set below
  registerMine(task, io);
  registerImport(task, io);
  registerNew(task, io);
  registerCheck(task, io, setExit);
  registerLifecycle(task, io);
  // The summary in `nanobench --help` names every subcommand, from the list itself.
  task.description(`dataset tasks: ${task.commands.map((c) => c.name()).join(', ')}`);
}

/** `task import`: a reference task from a merged PR's commit, its suites checked by default. */
function registerImport(task: Command, io: Io): void {
  task
    .command('import')
    .description(
      "a task from a merged PR's commit: base = first parent, patches split by test paths",
    )
    .requiredOption(
      '--repo <pathOrUrl>',
      'local clone, bundle or URL (or owner/name with --mirror)',
    )
    .requiredOption('--commit <sha>', 'the PR commit (squash or merge commit)')
    .option('--pr <url>', 'the pull request URL (gives repo, repo_url and the default id)')
    .option('--id <taskId>', 'task id (default: <name>-<PR number or short SHA>)')
    .option('--name <owner/name>', 'repository name when it cannot be inferred')
    .option('--mirror <dir>', 'look --repo owner/name up in DIR/<owner>/<name>(.git|.bundle)')
    .option(
      '--reference',
      'write references and digests (pr_commit, test_paths, patch_digests) instead of patch text: for tasks of real repositories',
    )
    .option('--exclude <paths...>', 'changed paths in neither patch (docs, generated files)')
    .option('--narrow', "point each guessed suite at the PR's test files, not the whole suite")
    .option(
      '--no-check',
      'write the guesses without running them (by default the suites run once at base and once with the golden patch)',
    )
    .option('--cache-dir <dir>', 'cache of source clones and environments (shared with run)')
    .option('--out <file>', 'write the task file here (default: stdout)')
    .option('--force', 'overwrite --out')
    .action(async (o) => {
      const options = {
        repo: o.repo,
        commit: o.commit,
        pr: o.pr,
        id: o.id,
        name: o.name,
        mirror: o.mirror,
        reference: Boolean(o.reference),
        exclude: o.exclude,
        narrow: Boolean(o.narrow),
      };
      if (o.out && existsSync(o.out) && !o.force)
        throw new UserError('EXISTS', `${o.out} already exists (add --force to overwrite it)`);
      const repo = openRepo(options);
      let r: ImportResult;
      try {
        r = importFrom(repo.gitDir, repo.location, options);
        for (const n of r.notes) io.stderr.write(`nanobench: ${n}\n`);
        if (o.check) {
          const checks = await checkImport(r.task, repo.gitDir, {
            cacheDir: cacheDirOf(o),
            log: (line) => io.stderr.write(`nanobench: ${line}\n`),
          });
          for (const c of checks)
            io.stderr.write(
              `nanobench: suite ${c.suite}: ${c.verified ? 'verified' : 'NOT verified'}: ${c.reason}\n`,
            );
          if (checks.some((c) => !c.verified))
            io.stderr.write(
              'nanobench: fix the suites not verified (command, format, result_file, install_command) before filling in the rest; nanobench validate shows the same runs gate by gate\n',
            );
        }
      } finally {
        repo.cleanup();
      }
      const todo = todoList(r.task);
      if (o.out) {
        writeNew(o.out, r.task, Boolean(o.force));
        io.stderr.write(`nanobench: wrote ${o.out}; ${todo}\n`);
        io.stderr.write(`nanobench: then run: nanobench validate --write ${o.out}\n`);
      } else {
        io.stdout.write(`${JSON.stringify(r.task, null, 2)}\n`);
        io.stderr.write(`nanobench: ${todo}\n`);
      }
    });
}

/** `task new`: a hand-written task scaffold. */
function registerNew(task: Command, io: Io): void {
  task
    .command('new')
    .description('scaffold a hand-written task: every field to fill is a TODO(curator) placeholder')
    .argument('<taskId>', 'the new task id')
    .option('--dataset <dir>', 'write <dir>/tasks/<taskId>.json', '.')
    .option('--out <file>', 'write exactly this file instead')
    .option('--force', 'overwrite an existing file')
    .action((taskId: string, o) => {
      if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(taskId))
        throw new UserError(
          'BAD_TASK_ID',
          `task id "${taskId}": use letters, digits, ".", "_", "-"`,
        );
      const file = o.out ?? join(o.dataset, 'tasks', `${taskId}.json`);
      const raw = scaffoldTask(taskId);
      writeNew(file, raw, Boolean(o.force));
      io.stderr.write(`nanobench: wrote ${file}; ${todoList(raw)}\n`);
    });
}

/** `task check`: the structural verdict on Harbor tasks. */
function registerCheck(task: Command, io: Io, setExit: (code: number) => void): void {
  task
    .command('check')
    .description(
      'the structural verdict on Harbor tasks (task.toml, instruction, environment, tests, solution, judge, leaks); the controls give the real one',
    )
    .argument('<dirs...>', 'Harbor task directories, or directories of them')
    .option('--graders', "also run each judge's grader test cases (host python3)")
    .option('--json', 'one JSON document on stdout')
    .action(async (dirs: string[], o) => {
      const targets = dirs.flatMap((d) => {
        const t = checkTargets(resolve(d));
        if (t.length === 0)
          throw new UserError(
            'NOT_HARBOR',
            `${resolve(d)}: no Harbor task here (task.toml, instruction.md, environment/, tests/); for PR tasks (schema v1) use nanobench validate`,
          );
        return t;
      });
      const results = [];
      for (const dir of targets) {
        const r = checkHarborTask(dir);
        let graders: CaseResult[] | undefined;
        const tests = join(dir, 'judge', 'grader_tests.json');
        if (o.graders && r.checks.find((c) => c.check === 'judge')?.ok && existsSync(tests)) {
          graders = await runGraderTests(readGraderTests(tests), hostGrader(join(dir, 'judge')));
          if (graders.some((g) => !g.ok)) r.valid = false;
        }
        results.push({ ...r, ...(graders && { graders }) });
        if (!o.json) io.stdout.write(checkText(r.task_id, dir, r.checks, graders, r.valid));
      }
      const valid = results.filter((r) => r.valid).length;
      if (o.json)
        io.stdout.write(
          `${JSON.stringify({ valid, total: results.length, tasks: results }, null, 2)}\n`,
        );
      else
        io.stdout.write(
          `${valid} of ${results.length} Harbor task(s) structurally valid; the controls give the real verdict: nanobench run DIR --sandbox podman --agent oracle (then nop)\n`,
        );
      if (valid < results.length) setExit(1);
    });
}
