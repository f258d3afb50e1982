// Gate 5, contamination: the PR was merged after the dataset's contamination cutoff (from
// --cutoff, else the manifest), and merged_at agrees with the repository: the commit whose first
// parent is base_commit was committed then.
import { git, tryGit } from '../util/git.js';
import type { GateContext } from './context.js';
import { fail, type GateOutcome, pass } from './types.js';

/** Committer dates of the commits whose FIRST parent is `base` (the PR commit is among them). */
function childDates(clone: string, base: string): Map<string, string> {
  const out = new Map<string, string>();
  const log = git(clone, ['log', '--all', '--format=%H %P %cI']);
  for (const line of log.split('\n')) {
    const [sha, first, ...rest] = line.split(' ');
    if (first === base) out.set(sha, rest[rest.length - 1]);
  }
  return out;
}

export async function contaminationGate(ctx: GateContext): Promise<GateOutcome> {
  const t = ctx.task;
  const cutoff = ctx.opts.cutoff ?? ctx.manifest?.cutoff ?? undefined;
  if (!cutoff)
    return fail(
      'no contamination cutoff is set for this dataset',
      `set "cutoff" in ${ctx.datasetDir}/dataset.json (nanobench dataset manifest --cutoff DATE) or pass --cutoff DATE`,
    );
  const merged = Date.parse(t.merged_at);
  if (!(merged > Date.parse(cutoff)))
    return fail(
      `merged_at ${t.merged_at} is not after the contamination cutoff ${cutoff}: models trained up to the cutoff may have seen this fix`,
      'pick a PR merged after the cutoff; this one cannot enter this dataset version (immutable SHAs pin the date)',
      { cutoff },
    );
  let confirmed = 'the PR commit is not in the source, so the date could not be checked against it';
  const clone = await ctx.clone().catch(() => undefined);
  if (clone) {
    const baseDate = tryGit(clone, ['show', '-s', '--format=%cI', t.base_commit])?.trim();
    if (baseDate && Date.parse(baseDate) > merged)
      return fail(
        `merged_at ${t.merged_at} is earlier than base_commit itself (${baseDate})`,
        "set merged_at to the PR commit's committer date (git show -s --format=%cI <PR commit>)",
        { cutoff },
      );
    if (t.pr_commit) {
      const prDate = tryGit(clone, ['show', '-s', '--format=%cI', t.pr_commit])?.trim();
      if (prDate && Date.parse(prDate) === merged)
        return pass(
          `merged ${t.merged_at}, after the cutoff ${cutoff}; confirmed by pr_commit ${t.pr_commit.slice(0, 12)}`,
          { cutoff },
        );
      if (prDate)
        return fail(
          `merged_at ${t.merged_at} is not the committer date of pr_commit ${t.pr_commit.slice(0, 12)} (${prDate})`,
          `set merged_at to ${new Date(prDate).toISOString().replace(/\.\d{3}Z$/, 'Z')}`,
          { cutoff },
        );
    }
    const children = childDates(clone, t.base_commit);
    const match = [...children].find(([, d]) => Date.parse(d) === merged);
    if (match) confirmed = `confirmed by commit ${match[0].slice(0, 12)}`;
    else if (children.size)
      return fail(
        `merged_at ${t.merged_at} matches none of the commits on top of base_commit (${[...children].map(([s, d]) => `${s.slice(0, 12)} at ${d}`).join(', ')})`,
        "set merged_at to the PR commit's committer date in UTC (git show -s --format=%cI <PR commit>)",
        { cutoff },
      );
  }
  return pass(`merged ${t.merged_at}, after the cutoff ${cutoff}; ${confirmed}`, { cutoff });
}
