// `nanobench contracts`: run the contract cases of a dataset's tasks through their evaluators
// and say, per task, which criterion misbehaved and how to fix it. Exit 1 when a task's grader
// misbehaves or a task has no cases; 2 on bad input.
import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { runContracts, type TaskContracts } from '../contracts/runner.js';
import { showVector } from '../score/criteria.js';
import { resolveDatasetArg } from '../task/registry.js';
import { UserError } from '../util/errors.js';
import { BUILD_ARG_OPTION, gateSandbox, IMAGE_OPTION, SANDBOX_OPTION } from './gate-sandbox.js';
import type { Io } from './progress.js';
import { cacheDirOf } from './run.js';

const show = (file: string) => {
  const rel = relative(process.cwd(), file);
  return rel.startsWith('..') ? file : rel;
};

function human(t: TaskContracts): string {
  const lines = [`${t.task_id ?? '(unreadable task)'}  ${show(t.file)}`];
  if (t.status === 'skipped') return `${lines[0]}\n  retired: not run\n\n`;
  if (t.criteria.length)
    lines.push(
      `  criteria: ${t.criteria.map((c) => `${c.id} (${c.tests} test${c.tests === 1 ? '' : 's'})`).join(', ')}`,
    );
  const crit = t.criteria.map((c) => ({ id: c.id, description: c.description }));
  const what = (r: TaskContracts['cases'][number]) =>
    r.outcome === 'reject' ? `reject ${r.criterion}` : r.outcome === 'accept' ? 'accept' : '';
  const idWidth = Math.max(0, ...t.cases.map((r) => r.case_id.length));
  const whatWidth = Math.max(0, ...t.cases.map((r) => what(r).length));
  for (const r of t.cases) {
    const got =
      r.evaluation === null
        ? 'not graded'
        : r.evaluation.status === 'infra'
          ? `evaluator failed (${r.evaluation.stage}/${r.evaluation.code})`
          : showVector(crit, r.evaluation.vector);
    lines.push(
      `  ${r.ok ? 'ok  ' : 'FAIL'}  ${r.case_id.padEnd(idWidth)}  ${what(r).padEnd(whatWidth)}  ${got}`,
    );
    for (const m of r.metamorphic) {
      const v =
        m.evaluation === null
          ? 'not graded'
          : m.evaluation.status === 'infra'
            ? 'evaluator failed'
            : showVector(crit, m.evaluation.vector);
      lines.push(`        ~ ${m.id}: ${m.relation}  ${v}`);
    }
  }
  for (const f of t.findings) {
    lines.push(`  ${f.criterion ? `criterion ${f.criterion}: ` : ''}${f.message}`);
    lines.push(`        how to fix: ${f.fix}`);
  }
  const verdict: Record<TaskContracts['status'], string> = {
    held: `contracts hold: ${t.alternatives} alternatives accepted, every criterion rejected by a targeted case`,
    misbehaved: `contracts do not hold (${[...new Set(t.findings.map((f) => f.kind))].join(', ')})`,
    no_cases: 'no contract cases',
    error: 'could not be run',
    skipped: 'retired',
  };
  lines.push(`  => ${verdict[t.status]}`);
  return `${lines.join('\n')}\n\n`;
}

export function registerContracts(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('contracts')
    .description(
      "run each task's contract cases (contracts/<task_id>/) through its evaluator: per criterion, does the grader accept the valid alternatives and reject what violates it?",
    )
    .argument('<targets...>', 'dataset directories or task files')
    .option('--task <ids...>', 'only these task ids')
    .option(
      '--mirror <dir>',
      'local mirror: DIR/<owner>/<name>(.git|.bundle) before any remote URL',
    )
    .option('--cache-dir <dir>', 'cache of source clones and environments (shared with run)')
    .option('--results <dir>', "write each case's evaluation to DIR/<task_id>/<case_id>.json")
    .option(...SANDBOX_OPTION)
    .option(...IMAGE_OPTION)
    .option(...BUILD_ARG_OPTION)
    .option('--json', 'one JSON document on stdout')
    .action(async (targets: string[], o) => {
      if (targets.length === 0) throw new UserError('NO_DATASET', 'name a dataset or task file');
      const sandbox = await gateSandbox({
        ...o,
        protectedPaths: [cacheDirOf(o), ...targets.map((t) => resolveDatasetArg(t))],
        warn: (line) => io.stderr.write(`nanobench: ${line}\n`),
      });
      const results = await runContracts(
        targets,
        {
          cacheDir: cacheDirOf(o),
          sandbox,
          mirrorDir: o.mirror ? resolve(o.mirror) : undefined,
          taskIds: o.task?.flatMap((t: string) => t.split(',')).filter(Boolean),
          resultsDir: o.results ? resolve(o.results) : undefined,
          log: (line) => io.stderr.write(`nanobench: ${line}\n`),
        },
        (t) => {
          if (!o.json) io.stdout.write(human(t));
        },
      );
      const run = results.filter((r) => r.status !== 'skipped');
      const held = run.filter((r) => r.status === 'held');
      const ids = (s: TaskContracts['status']) =>
        run.filter((r) => r.status === s).map((r) => r.task_id ?? r.file);
      const summary = {
        held: held.length,
        total: run.length,
        misbehaved: ids('misbehaved'),
        no_cases: ids('no_cases'),
        error: ids('error'),
      };
      if (o.json) io.stdout.write(`${JSON.stringify({ ...summary, tasks: results }, null, 2)}\n`);
      else
        io.stdout.write(
          `${held.length} of ${run.length} task(s) hold their contracts${summary.misbehaved.length ? `; misbehaving: ${summary.misbehaved.join(', ')}` : ''}${summary.no_cases.length ? `; without cases: ${summary.no_cases.join(', ')}` : ''}${summary.error.length ? `; could not be run: ${summary.error.join(', ')}` : ''}\n`,
        );
      if (held.length < run.length) setExit(1);
    });
}
