// `nanobench compare BASE CANDIDATE`: did the candidate run get better or worse than the base,
// per provider/model/mode, beyond noise? Each side is a run id in --db, or DB:RUNID. --rule picks
// the verdict that counts (paired by default, or the whitepaper's interval overlap).
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { comparedAudit, compareSide } from '../report/compare-input.js';
import { compareMarkdown } from '../report/compare-markdown.js';
import {
  compareRuns,
  datasetVersionDifference,
  RULES,
  type Rule,
  type RunSide,
} from '../stats/compare.js';
import type { AuditRecord } from '../store/store.js';
import { Store } from '../store/store.js';
import { UserError } from '../util/errors.js';
import type { Io } from './progress.js';
import { DEFAULT_DB } from './run.js';

const EXIT_CODES = `
Verdicts, per provider/model/mode (modes and models are never pooled):
  paired   (default) each task compared with itself: a sign-flip test over the tasks both runs
           scored, Holm-corrected over the groups of the comparison (family-wise alpha 0.05);
           a group with fewer than 6 shared tasks cannot be paired and falls back to overlap
  overlap  the whitepaper's rule: the 95% Wilson intervals of the pooled trials do not overlap
Both verdicts are always shown; --rule decides which one counts for --fail-on-regression.

Exit codes:
  0  compared (with --fail-on-regression: no group's verdict, by the rule, is "regression")
  1  --fail-on-regression and at least one group's verdict (by --rule) is "regression";
     a difference inside the noise never fails
  2  usage error (unknown run or database, bad option, the same run twice, runs over different
     dataset versions without --across-versions)

BASE and CANDIDATE are run ids in --db, "latest", or DB:RUNID to take a run from another
database (e.g. main.sqlite:latest pr.sqlite:latest).

Example:
  nanobench compare main.sqlite:latest pr.sqlite:latest --fail-on-regression
  nanobench compare BASE_RUN CANDIDATE_RUN --rule overlap --json`;

/** --rule, checked: one line naming the choices otherwise. */
export function parseRule(value: string): Rule {
  if (!(RULES as readonly string[]).includes(value))
    throw new UserError('BAD_OPTION', `--rule must be ${RULES.join(' or ')}, got "${value}"`);
  return value as Rule;
}

/** "RUNID" or "DB:RUNID" (the last colon splits, so a path may contain colons). */
export function parseRunRef(ref: string, defaultDb: string): { db: string; id: string } {
  const i = ref.lastIndexOf(':');
  const r = i > 0 ? { db: ref.slice(0, i), id: ref.slice(i + 1) } : { db: defaultDb, id: ref };
  if (!r.id) throw new UserError('BAD_OPTION', `"${ref}": expected RUNID or DB:RUNID`);
  return r;
}

function loadSide(ref: string, defaultDb: string): RunSide & { audit?: AuditRecord } {
  const { db, id } = parseRunRef(ref, defaultDb);
  const store = Store.open(db, { reader: true });
  try {
    const run = id === 'latest' ? store.latestRun() : store.getRun(id);
    if (!run)
      throw new UserError(
        'NO_RUN',
        id === 'latest' ? `${db}: no runs stored yet` : `${db}: no run "${id}"`,
      );
    return compareSide(store, run);
  } finally {
    store.close();
  }
}

/** Comparing a run with itself (or with its copy in another database) finds nothing, silently. */
export function sameRun(
  id: string,
  baseRef: string,
  candRef: string,
  defaultDb: string,
): UserError {
  const [a, b] = [parseRunRef(baseRef, defaultDb).db, parseRunRef(candRef, defaultDb).db];
  const where = resolve(a) === resolve(b) ? `in ${a}` : `in ${a} and in ${b}`;
  return new UserError(
    'SAME_RUN',
    `base and candidate are the same run (${id} ${where}): name two different runs`,
  );
}

export function registerCompare(program: Command, io: Io, setExit: (code: number) => void): void {
  program
    .command('compare')
    .description('compare two runs: improvement / regression / not distinguishable from noise')
    .argument('<base>', 'the reference run: RUNID, latest, or DB:RUNID')
    .argument('<candidate>', 'the run under test: RUNID, latest, or DB:RUNID')
    .option('--db <path>', 'results database for run ids without DB:', DEFAULT_DB)
    .option('--fail-on-regression', 'exit 1 when any group\'s verdict is "regression" (for CI)')
    .option(
      '--rule <rule>',
      'paired | overlap: which verdict counts for the headline and --fail-on-regression',
      'paired',
    )
    .option('--format <format>', 'md | json', 'md')
    .option('--json', 'same as --format json')
    .option(
      '--across-versions',
      'compare runs over different dataset versions anyway (on the tasks they share; the output says so)',
    )
    .addHelpText('after', EXIT_CODES)
    .action((baseRef: string, candRef: string, o) => {
      const format = o.json ? 'json' : o.format;
      const rule = parseRule(o.rule);
      if (format !== 'md' && format !== 'json')
        throw new UserError('BAD_OPTION', `--format must be md or json, got "${format}"`);
      const base = loadSide(baseRef, o.db);
      const candidate = loadSide(candRef, o.db);
      if (base.id === candidate.id) throw sameRun(base.id, baseRef, candRef, o.db);
      const versions = datasetVersionDifference(base, candidate);
      if (versions && !o.acrossVersions)
        throw new UserError(
          'DATASET_VERSIONS_DIFFER',
          `${versions}: tasks may have been added, changed or retired between them; compare runs of one version (an archived version runs as DATASET@VERSION), or pass --across-versions to compare the tasks they share anyway`,
        );
      // Two databases may have different audits: the stricter one applies to both sides.
      const c = compareRuns(base, candidate, comparedAudit(base, candidate), { rule });
      io.stdout.write(format === 'json' ? `${JSON.stringify(c, null, 2)}\n` : compareMarkdown(c));
      for (const w of c.warnings) io.stderr.write(`nanobench: warning: ${w}\n`);
      if (o.failOnRegression && c.regressions > 0) setExit(1);
    });
}
