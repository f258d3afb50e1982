// `nanobench ci comment`: the pull-request comment for a run (and its base), printed or posted.
// The GitHub token is read from an environment variable, never from the command line.
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { COMMENT_MARKER, type CommentSide, commentBody } from '../ci/comment.js';
import { upsertComment } from '../ci/github.js';
import { unknownRunMessage } from '../report/run-list.js';
import { resolveTaskMeta } from '../report/task-meta.js';
import { intOption } from '../run/config.js';
import { Store } from '../store/store.js';
import { UserError } from '../util/errors.js';
import { parseRule, sameRun } from './compare.js';
import type { Io } from './progress.js';
import { DEFAULT_DB } from './run.js';

/** "RUNID", "latest", or "DB:RUNID" (the last colon splits: paths may contain colons). */
function loadSide(ref: string, defaultDb: string): CommentSide & { db: string } {
  const i = ref.lastIndexOf(':');
  const [db, id] = i > 0 ? [ref.slice(0, i), ref.slice(i + 1)] : [defaultDb, ref];
  const store = Store.open(db, { reader: true });
  try {
    const run = id === 'latest' ? store.latestRun() : store.getRun(id);
    if (!run)
      throw new UserError(
        'NO_RUN',
        id === 'latest'
          ? `${db}: no runs stored yet`
          : unknownRunMessage(db, id, store.listRunIds()),
      );
    const meta = resolveTaskMeta(run.config);
    return {
      db,
      run,
      trials: store.trials(run.id),
      tiers: Object.fromEntries(Object.entries(meta.tasks).map(([t, m]) => [t, m.tier])),
      audit: store.latestAudit(),
    };
  } finally {
    store.close();
  }
}

export function registerCi(program: Command, io: Io): void {
  const ci = program.command('ci').description('continuous-integration helpers');
  ci.command('comment')
    .description('write the pull-request comment for a run; post or update it on GitHub')
    .requiredOption('--run <ref>', 'the PR build\'s run: RUNID, "latest" or DB:RUNID')
    .option('--compare <ref>', "the base build's run, for the regression verdict")
    .option(
      '--rule <rule>',
      'paired | overlap: which verdict the headline counts (as nanobench compare --rule)',
      'paired',
    )
    .option('--db <path>', 'results database for refs without DB:', DEFAULT_DB)
    .option('--repo <owner/name>', 'repository of the pull request')
    .option('--pr <n>', 'pull request number')
    .option('--token-env <name>', 'environment variable holding the token', 'GITHUB_TOKEN')
    .option('--api-url <url>', 'GitHub API base URL (default: $GITHUB_API_URL or api.github.com)')
    .option('--dry-run', 'print the comment on stdout; post nothing')
    .option(
      '--view-url <url>',
      'base URL of a `nanobench view` serving this database (both: view --db A --db B, when --compare is in another): the comment links to the run and the comparison',
    )
    .action(async (o) => {
      if (o.viewUrl !== undefined && !/^https?:\/\/[^\s/]+/.test(o.viewUrl))
        throw new UserError('BAD_OPTION', `--view-url must be an http(s) URL, got "${o.viewUrl}"`);
      const rule = parseRule(o.rule);
      const head = loadSide(o.run, o.db);
      const base = o.compare ? loadSide(o.compare, o.db) : undefined;
      if (base && base.run.id === head.run.id) throw sameRun(head.run.id, o.compare, o.run, o.db);
      // Two databases: `nanobench view --db A --db B` names each run DB:RUNID by its file name.
      if (base && resolve(base.db) !== resolve(head.db))
        for (const side of [head, base]) side.viewRef = `${basename(side.db)}:${side.run.id}`;
      const body = commentBody(head, base, { viewUrl: o.viewUrl, rule });
      if (o.dryRun) {
        io.stdout.write(body);
        return;
      }
      if (!o.repo || !/^[\w.-]+\/[\w.-]+$/.test(o.repo))
        throw new UserError('BAD_OPTION', '--repo owner/name is needed to post (or use --dry-run)');
      if (o.pr === undefined)
        throw new UserError('BAD_OPTION', '--pr N is needed to post (or use --dry-run)');
      const pr = intOption(o.pr, '--pr');
      const token = process.env[o.tokenEnv];
      if (!token)
        throw new UserError(
          'NO_TOKEN',
          `$${o.tokenEnv} is empty: set it to a token allowed to comment on ${o.repo} (or use --dry-run)`,
        );
      const apiUrl = o.apiUrl ?? process.env.GITHUB_API_URL ?? 'https://api.github.com';
      const r = await upsertComment({ apiUrl, repo: o.repo, pr, token }, body, COMMENT_MARKER);
      io.stderr.write(`nanobench: ${r.action} comment ${r.id} on ${o.repo}#${pr}\n`);
      io.stdout.write(`${JSON.stringify(r)}\n`);
    });
}
