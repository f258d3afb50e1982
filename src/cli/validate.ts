// `nanobench validate`: run the admission gates on tasks and say, per gate, pass or fail and how
// to fix a failure. Exits 1 when any task fails a gate.
import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { validateHarbor } from '../gates/harbor.js';
import { GATES, parseGateList, type TaskValidation, validate } from '../gates/runner.js';
import { intOption } from '../run/config.js';
import { newEvidence, writeEvidence } from '../task/evidence.js';
import { harborTaskDirs } from '../task/harbor.js';
import { parseCutoff } from '../task/manifest.js';
import { resolveDatasetArg } from '../task/registry.js';
import { UserError } from '../util/errors.js';
import type { SandboxDriver } from '../workspace/sandbox/select.js';
import { BUILD_ARG_OPTION, gateSandbox, IMAGE_OPTION, SANDBOX_OPTION } from './gate-sandbox.js';
import type { Io } from './progress.js';
import { cacheDirOf, DB_FOR_CACHE } from './run.js';

/** The Harbor tasks among the targets, each through its schema and controls gates. */
async function validateHarborTargets(
  dirs: string[],
  o: { sandbox?: SandboxDriver; cacheDir: string },
  each: (v: TaskValidation) => void,
): Promise<TaskValidation[]> {
  if (!dirs.length) return [];
  const cacheDir = o.cacheDir;
  const out: TaskValidation[] = [];
  for (const dir of dirs)
    for (const task of harborTaskDirs(dir) ?? []) {
      const v = await validateHarbor(task, dir, { cacheDir, sandbox: o.sandbox });
      each(v);
      out.push(v);
    }
  return out;
}

function human(v: TaskValidation): string {
  const rel = relative(process.cwd(), v.file);
  const lines = [`${v.task_id ?? '(unreadable task)'}  ${rel.startsWith('..') ? v.file : rel}`];
  for (const g of v.gates) {
    const tag = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP' }[g.status];
    lines.push(`  ${tag}  ${g.gate.padEnd(13)} ${g.reason}`);
    if (g.fix) lines.push(`        how to fix: ${g.fix}`);
  }
  const failed = v.gates.filter((g) => g.status === 'fail').map((g) => g.gate);
  lines.push(
    v.admissible
      ? '  => admissible'
      : `  => not admissible${failed.length ? ` (failed: ${failed.join(', ')})` : ''}`,
    '',
  );
  return lines.join('\n');
}

export function registerValidate(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('validate')
    .description('run the admission gates on tasks: pass/fail per gate and how to fix a failure')
    .argument('<targets...>', 'dataset directories or task files')
    .option(
      '--only <gates...>',
      `only these gates (schema always runs): ${GATES.map((g) => g.id).join(', ')}`,
    )
    .option('--write', 'record the computed fail_to_pass / pass_to_pass in the task files')
    .option('--cutoff <date>', "contamination cutoff (default: the dataset manifest's)")
    .option(
      '--mirror <dir>',
      'local mirror: DIR/<owner>/<name>(.git|.bundle) before any remote URL',
    )
    .option(...DB_FOR_CACHE)
    .option('--cache-dir <dir>', 'cache of source clones and environments (shared with run)')
    .option(
      '--record-evidence',
      "keep each task's full result in <dataset>/evidence/<task_id>.json, tied to the task's digest (needs every gate: not with --only)",
    )
    .option(...SANDBOX_OPTION)
    .option(...IMAGE_OPTION)
    .option(
      '--concurrency <n>',
      "PR tasks validated at once (1-16, default 1); results are printed in the targets' order",
    )
    .option(...BUILD_ARG_OPTION)
    .option('--json', 'one JSON document on stdout')
    .action(async (targets: string[], o) => {
      if (targets.length === 0) throw new UserError('NO_DATASET', 'name a dataset or task file');
      const only = parseGateList(o.only);
      if (o.recordEvidence && only)
        throw new UserError('BAD_OPTION', '--record-evidence needs every gate to run; drop --only');
      // Harbor tasks have their own two gates (src/gates/harbor.ts); PR tasks the usual ones.
      const harbor = targets.map((t) => resolveDatasetArg(t)).filter((t) => harborTaskDirs(t));
      // Each task's result as it is known: its evidence kept, its verdict printed.
      const each = (v: TaskValidation) => {
        if (o.recordEvidence && v.task_id && v.digest) {
          const file = writeEvidence(
            v.dataset,
            newEvidence(v.task_id, v.digest, v.admissible, v.gates, v.content_digest ?? undefined),
          );
          io.stderr.write(`nanobench: ${v.task_id}: evidence written to ${file}\n`);
        }
        if (!o.json) io.stdout.write(human(v));
      };
      const concurrency =
        o.concurrency === undefined ? 1 : intOption(o.concurrency, '--concurrency', 1, 16);
      const sandbox = await gateSandbox({
        ...o,
        protectedPaths: [cacheDirOf(o), ...targets.map((t) => resolveDatasetArg(t))],
        warn: (line) => io.stderr.write(`nanobench: ${line}\n`),
      });
      // A Harbor task's controls need its environment image: a container sandbox or none.
      const harborResults = await validateHarborTargets(
        harbor,
        { sandbox: sandbox.container ? sandbox : undefined, cacheDir: cacheDirOf(o) },
        each,
      );
      const prTargets = targets.filter((t) => !harborTaskDirs(resolveDatasetArg(t)));
      const prResults = !prTargets.length
        ? []
        : await validate(
            prTargets,
            {
              cacheDir: cacheDirOf(o),
              mirrorDir: o.mirror ? resolve(o.mirror) : undefined,
              cutoff: o.cutoff ? parseCutoff(o.cutoff) : undefined,
              write: Boolean(o.write),
              sandbox,
              concurrency,
              log: (line) => io.stderr.write(`nanobench: ${line}\n`),
            },
            only,
            each,
          );
      const results = [...harborResults, ...prResults];
      const admissible = results.filter((r) => r.admissible).length;
      // A waiver admits a task below a gate's bar: count them where the verdict is read.
      const waived = results.filter((r) => r.gates.some((g) => g.details?.waiver)).length;
      if (o.json)
        io.stdout.write(
          `${JSON.stringify({ admissible, waived, total: results.length, tasks: results }, null, 2)}\n`,
        );
      else
        io.stdout.write(
          `${admissible} of ${results.length} task(s) admissible${waived ? `, ${waived} by a recorded waiver (see "waived:")` : ''}\n`,
        );
      if (admissible < results.length) setExit(1);
    });
}
