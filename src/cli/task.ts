// `nanobench task import|new|retire|dispute`: curating the tasks of a dataset.
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { calibrate, observationsOf, readStoredRuns } from '../calibration/calibration.js';
import { checkImport } from '../gates/import-check.js';
import { type CheckResult, checkHarborTask, checkTargets } from '../harbor/check.js';
import { hostGrader } from '../harbor/judge/grader.js';
import { type CaseResult, readGraderTests, runGraderTests } from '../harbor/judge/grader-tests.js';
import { intOption } from '../run/config.js';
import { contentDigest } from '../task/digest.js';
import {
  activateTask,
  findTaskFile,
  keepSaturated,
  listDisputes,
  openDispute,
  recalibrateTask,
  resolveDispute,
  retireTask,
} from '../task/governance.js';
import { type ImportResult, importFrom, openRepo, scaffoldTask } from '../task/import.js';
import { loadTaskFile } from '../task/load.js';
import { findPlaceholders } from '../task/placeholders.js';
import { UserError } from '../util/errors.js';
import { writeFailure, writeUserFile } from '../util/write.js';
import { calibrationMode } from './calibration.js';
import { registerMine } from './mine.js';
import type { Io } from './progress.js';
import { cacheDirOf, DEFAULT_DB } from './run.js';

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

  task
    .command('retire')
    .description('mark a task retired (the file stays); it drops out of the next manifest and runs')
    .argument('<taskId>', 'the task id')
    .requiredOption(
      '--reason <text>',
      'why (flaky after onboarding, history rewritten, contaminated...)',
    )
    .option('--version <v>', 'the dataset version it is absent from')
    .option('--dataset <dir>', 'dataset directory', '.')
    .action((taskId: string, o) => {
      const file = findTaskFile(o.dataset, taskId);
      retireTask(file, o.reason, o.version);
      io.stderr.write(
        `nanobench: retired ${taskId} (${file} kept); publish with: nanobench dataset manifest ${o.dataset}${o.version ? ` --version ${o.version}` : ' --version <next>'}\n`,
      );
    });

  const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  /** The task's calibration from the stored runs named by --db. */
  const calibrationOf = (taskId: string, o: { dataset: string; db: string[]; mode: string }) => {
    const file = findTaskFile(o.dataset, taskId);
    const lt = loadTaskFile(file, resolve(o.dataset));
    const obs = observationsOf(readStoredRuns(o.db), [lt], calibrationMode(o.mode));
    return { file, lt, cal: calibrate(lt, obs, { dataset: o.dataset, dbs: o.db }) };
  };
  const pct = (r: number | null) => `${((r ?? 0) * 100).toFixed(0)}%`;

  task
    .command('activate')
    .description(
      'a calibrated task becomes active: 3 configurations (models or Nanocoder builds) with 3 valid observations each in the stored runs, no open dispute, and your approval rationale',
    )
    .argument('<taskId>', 'the task id')
    .requiredOption(
      '--reason <text>',
      'the approval rationale (alternatives and disputes reviewed)',
    )
    .option(
      '--keep-saturated <text>',
      'why it should be active although saturated (pooled solve rate >= 0.9)',
    )
    .option('--db <paths...>', 'results databases holding the calibration runs', [DEFAULT_DB])
    .option('--mode <mode>', 'hinted | navigation: the mode whose trials count', 'hinted')
    .option('--dataset <dir>', 'dataset directory', '.')
    .action((taskId: string, o) => {
      const { file, lt, cal } = calibrationOf(taskId, o);
      if (lt.task.status.state !== 'calibrating')
        throw new UserError(
          'NOT_CALIBRATING',
          `${file}: ${taskId} is ${lt.task.status.state}; only a calibrating task is activated`,
        );
      if (!cal.ready)
        throw new UserError(
          'NOT_CALIBRATED',
          `${taskId} is not calibrated: ${cal.qualified.length} of 3 configurations have 3 valid ${o.mode} observations (${cal.configurations.map((c) => `${c.configuration}: ${c.valid}`).join('; ') || `no observations in the runs of ${o.db.join(', ')}`}); run it with other models or Nanocoder builds: nanobench run ${o.dataset} --calibrating --task ${taskId} --runs 3 --model ...`,
        );
      const open = lt.task.disputes.filter((d) => !d.resolution);
      if (open.length)
        throw new UserError(
          'OPEN_DISPUTES',
          `${taskId} has ${open.length} open dispute(s) (${open.map((d) => d.claim).join('; ')}): resolve them first (nanobench task dispute ${taskId} --resolve N --resolution ...)`,
        );
      if (cal.saturated && !o.keepSaturated)
        throw new UserError(
          'SATURATED',
          `${taskId} is saturated: pooled solve rate ${pct(cal.pooled.rate)} (${cal.pooled.passed}/${cal.pooled.valid}) >= 0.9, so it would not separate models; give --keep-saturated "<why>" to activate it anyway, or retire it`,
        );
      const at = now();
      activateTask(
        file,
        {
          at,
          reason: o.reason,
          content_digest: contentDigest(lt.task),
          configurations: cal.qualified,
          observations: cal.pooled.valid,
        },
        cal.saturated
          ? {
              pooled_rate: cal.pooled.rate,
              passed: cal.pooled.passed,
              observations: cal.pooled.valid,
              marked_at: at,
              reason: o.keepSaturated,
            }
          : undefined,
      );
      io.stderr.write(
        `nanobench: activated ${taskId}: ${cal.qualified.length} configurations, ${cal.pooled.valid} observations, pooled solve rate ${pct(cal.pooled.rate)}; publish with: nanobench dataset release ${o.dataset} --version <next>\n`,
      );
    });

  task
    .command('keep-saturated')
    .description(
      'record why an active task stays active although saturated (pooled solve rate >= 0.9)',
    )
    .argument('<taskId>', 'the task id')
    .requiredOption('--reason <text>', 'why it still belongs in the benchmark')
    .option('--db <paths...>', 'results databases holding the runs', [DEFAULT_DB])
    .option('--mode <mode>', 'hinted | navigation: the mode whose trials count', 'hinted')
    .option('--dataset <dir>', 'dataset directory', '.')
    .action((taskId: string, o) => {
      const { file, cal } = calibrationOf(taskId, o);
      if (!cal.saturated)
        throw new UserError(
          'NOT_SATURATED',
          `${taskId} is not saturated in these runs: pooled solve rate ${pct(cal.pooled.rate)} (${cal.pooled.passed}/${cal.pooled.valid})${cal.ready ? '' : ', and fewer than 3 configurations have 3 valid observations'}`,
        );
      keepSaturated(file, {
        pooled_rate: cal.pooled.rate,
        passed: cal.pooled.passed,
        observations: cal.pooled.valid,
        marked_at: now(),
        reason: o.reason,
      });
      io.stderr.write(
        `nanobench: ${taskId} stays active, saturated at ${pct(cal.pooled.rate)}: ${o.reason}\n`,
      );
    });

  task
    .command('recalibrate')
    .description(
      'return a task to calibrating (its content changed since activation, or a retired task comes back)',
    )
    .argument('<taskId>', 'the task id')
    .option('--dataset <dir>', 'dataset directory', '.')
    .action((taskId: string, o) => {
      const file = findTaskFile(o.dataset, taskId);
      recalibrateTask(file);
      io.stderr.write(
        `nanobench: ${taskId} is calibrating again; its observations on the current content count (nanobench calibration ${o.dataset})\n`,
      );
    });

  task
    .command('dispute')
    .description("list a task's disputes, or record one, or its resolution, in the task file")
    .argument('<taskId>', 'the task id')
    .option('--claim <text>', 'open a dispute: what is claimed to be wrong')
    .option('--by <who>', 'who raised it (e.g. a GitHub handle or issue URL)')
    .option('--resolve <n>', 'resolve dispute number n (1-based)')
    .option('--resolution <text>', "the maintainer's ruling, with --resolve")
    .option('--dataset <dir>', 'dataset directory', '.')
    .option('--json', 'print the disputes as JSON')
    .action((taskId: string, o) => {
      const file = findTaskFile(o.dataset, taskId);
      let disputes: { claim: string; resolution?: string }[];
      if (o.claim !== undefined) {
        if (!o.by) throw new UserError('BAD_OPTION', '--claim needs --by <who>');
        disputes = openDispute(file, o.by, o.claim);
      } else if (o.resolve !== undefined) {
        const n = intOption(o.resolve, '--resolve');
        if (!o.resolution) throw new UserError('BAD_OPTION', '--resolve needs --resolution <text>');
        disputes = resolveDispute(file, n, o.resolution);
      } else if (o.by !== undefined || o.resolution !== undefined)
        throw new UserError(
          'BAD_OPTION',
          `${o.by !== undefined ? '--by goes with --claim' : '--resolution goes with --resolve'}: give --claim (with --by) or --resolve (with --resolution), or neither to list the disputes`,
        );
      else disputes = listDisputes(file); // neither: the list, as it stands
      if (o.json) io.stdout.write(`${JSON.stringify(disputes, null, 2)}\n`);
      else if (!disputes.length) io.stderr.write(`nanobench: ${taskId} has no dispute\n`);
      else
        for (const [i, d] of disputes.entries())
          io.stdout.write(`#${i + 1} ${d.resolution ? 'resolved' : 'open'}: ${d.claim}\n`);
    });
  // The summary in `nanobench --help` names every subcommand, from the list itself.
  task.description(`dataset tasks: ${task.commands.map((c) => c.name()).join(', ')}`);
}
