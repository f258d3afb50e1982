// `nanobench task mine`: candidate tasks from a repository's merged PRs (src/mine/).
import { join, resolve } from 'node:path';
import type { Command } from 'commander';
import { REASON_TEXT } from '../mine/judge.js';
import { githubName, type MineResult, mine } from '../mine/mine.js';
import type { MineRow } from '../mine/state.js';
import { intOption } from '../run/config.js';
import { identity, openRepo } from '../task/import.js';
import { UserError } from '../util/errors.js';
import type { Io } from './progress.js';
import { cacheDirOf, DB_FOR_CACHE } from './run.js';

function positiveInt(flag: string, value: string | undefined, max: number): number | undefined {
  return value === undefined ? undefined : intOption(value, flag, 1, max);
}

function isoDate(flag: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (
    !/^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) ||
    Number.isNaN(Date.parse(value))
  )
    throw new UserError(
      'BAD_OPTION',
      `${flag} must be a date like 2026-01-31 (or an ISO 8601 time), got "${value}"`,
    );
  return value;
}

const secs = (ms: number | undefined) => (ms === undefined ? '-' : `${(ms / 1000).toFixed(1)}s`);

/** One line per candidate, as it is decided. */
export function rowText(r: MineRow): string {
  const pr = (r.pr !== undefined ? `#${r.pr}` : '').padEnd(7);
  const head = `${pr} ${r.commit.slice(0, 10)} ${r.merged_at.slice(0, 10)}`;
  const tail = `${r.resumed ? ' (decided earlier)' : ''}${r.written ? `; ${r.written.endsWith('(kept)') ? '' : 'wrote '}${r.written}` : ''}`;
  if (r.status === 'admitted') {
    const t = r.timings;
    return `ADMIT   ${head}  ${r.task_id}: ${r.fail_to_pass} fail_to_pass, ${r.pass_to_pass} pass_to_pass; env ${secs(t?.env_ms)}, base+golden ${secs(t?.verify_ms)}, flakiness ${secs(t?.flaky_ms)}, slowest run ${secs(t?.slowest_run_ms)}${tail}\n`;
  }
  const detail = r.detail.length > 300 ? `${r.detail.slice(0, 297)}...` : r.detail;
  return `REJECT  ${head}  ${REASON_TEXT[r.reason ?? 'error']}: ${detail}${tail}\n`;
}

export function summaryText(m: MineResult): string {
  const why = Object.entries(m.rejected)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${REASON_TEXT[k as keyof typeof REASON_TEXT]} ${n}`)
    .join(', ');
  const limited = m.found > m.rows.length ? ` (of ${m.found} in the range; --limit)` : '';
  return `${m.repo}: ${m.rows.length} candidate(s)${limited}: ${m.admitted} admitted by the automatic gates, ${m.rows.length - m.admitted} rejected${why ? ` (${why})` : ''}\n`;
}

export function registerMine(task: Command, io: Io): void {
  task
    .command('mine')
    .description(
      "candidate tasks from a repository's merged PRs: each imported (suites guessed) and run at base and with the golden patch by the automatic gates; one row per PR, admitted or rejected and why",
    )
    .requiredOption('--repo <dir>', 'a clone or a bare mirror of the repository')
    .option(
      '--name <owner/name>',
      'the GitHub repository (default: from the origin URL, else the last two parts of --repo)',
    )
    .option('--ref <ref>', 'the branch whose first-parent history is walked', 'HEAD')
    .option('--since <date>', 'only PRs merged on or after this date (YYYY-MM-DD)')
    .option('--until <date>', 'only PRs merged before this date')
    .option('--limit <n>', 'at most N candidates, newest first')
    .option(
      '--max-files <n>',
      'reject PRs changing more files than this (changelogs not counted)',
      '15',
    )
    .option('--no-narrow', "run each package's whole suite, not only the PR's test files")
    .option(
      '--verifier-sec <n>',
      'timeouts.verifier_sec of the imported tasks (default 300; the runtime gate allows 80%)',
    )
    .option(...DB_FOR_CACHE)
    .option(
      '--cache-dir <dir>',
      'cache of source clones and environments (shared with run and validate)',
    )
    .option('--state <file>', 'the resumable state (default: <cache-dir>/mine/<owner_name>.json)')
    .option(
      '--out <dataset>',
      'write each admitted task to <dataset>/tasks/<task_id>.json (never overwrites)',
    )
    .option('--json', 'one JSON document on stdout')
    .addHelpText(
      'after',
      `
Example:
  nanobench task mine --repo /work/mirrors/moment/luxon.git --since 2026-01-01 --limit 20
  nanobench task mine --repo ../click --name pallets/click --out datasets/next   # write the admitted

A second invocation skips the candidates it decided (the state file); an admitted task still needs
its problem statement, tier and the rest of the TODO(curator) fields, then nanobench validate.`,
    )
    .action(async (o) => {
      const limit = positiveInt('--limit', o.limit, 100_000);
      const maxFiles = positiveInt('--max-files', o.maxFiles, 10_000)!;
      const verifierSec = positiveInt('--verifier-sec', o.verifierSec, 86_400);
      const since = isoDate('--since', o.since);
      const until = isoDate('--until', o.until);
      if (o.name && !/^[^/\s]+\/[^/\s]+$/.test(o.name))
        throw new UserError('BAD_OPTION', `--name must be owner/name, got "${o.name}"`);
      const repo = openRepo({ repo: o.repo, commit: 'HEAD' });
      try {
        const name = o.name ?? githubName(repo.gitDir);
        const id = identity({ repo: o.repo, commit: 'HEAD', name }, repo.gitDir, repo.location);
        const cacheDir = cacheDirOf(o);
        const result = await mine({
          gitDir: repo.gitDir,
          location: repo.location,
          repo: id.repo,
          ...(name && { prBase: `https://github.com/${name}` }),
          ref: o.ref,
          since,
          until,
          limit,
          maxFiles,
          narrow: Boolean(o.narrow),
          verifierSec,
          cacheDir,
          stateFile: resolve(
            o.state ?? join(cacheDir, 'mine', `${id.repo.replace(/[^A-Za-z0-9._-]+/g, '_')}.json`),
          ),
          out: o.out ? resolve(o.out) : undefined,
          log: (line) => io.stderr.write(`nanobench: ${line}\n`),
          onRow: (row) => {
            if (!o.json) io.stdout.write(rowText(row));
          },
        });
        if (o.json) {
          const rows = result.rows.map(({ task: _task, ...r }) => r);
          io.stdout.write(`${JSON.stringify({ ...result, rows }, null, 2)}\n`);
        } else io.stdout.write(summaryText(result));
        io.stderr.write(`nanobench: state in ${result.state}\n`);
      } finally {
        repo.cleanup();
      }
    });
}
