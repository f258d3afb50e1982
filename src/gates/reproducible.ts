// Gate 2, reproducible: base_commit (and pr_commit) can be fetched from the task's source, a
// reference task's patches derived from it match their recorded digests, and the environment
// can be built at base_commit (install command included), exactly as every trial will.
import type { Task } from '../task/schema.js';
import { InfraError, UserError } from '../util/errors.js';
import type { RepoSource } from '../workspace/source.js';
import type { GateContext } from './context.js';
import { fail, type GateOutcome, pass } from './types.js';

const KIND_TEXT: Record<RepoSource['kind'], string> = {
  mirror: 'a mirror (--mirror) of',
  'dataset-mirror': "the dataset's mirror of",
  local: 'a local copy of',
  remote: 'the remote',
};

/**
 * What identifies the source on any machine: the repository, the commits and which kind of copy
 * served them. Never a path of this machine: the evidence that records it ships with a dataset.
 */
export function sourceFacts(task: Task, source: RepoSource) {
  return {
    repository: task.repo_url,
    base_commit: task.base_commit,
    ...(task.pr_commit && { pr_commit: task.pr_commit }),
    source_kind: source.kind,
  };
}

export async function reproducibleGate(ctx: GateContext): Promise<GateOutcome> {
  const source = ctx.source();
  const details = sourceFacts(ctx.task, source);
  const from = `${KIND_TEXT[source.kind]} ${ctx.task.repo_url}`;
  try {
    await ctx.resolved();
    const snap = await ctx.snapshot();
    const cmd = ctx.task.install_command;
    const install = cmd
      ? `install command "${cmd.length > 80 ? `${cmd.slice(0, 77)}...` : cmd}" ran`
      : 'no install command';
    const derived =
      ctx.task.pr_commit && ctx.task.patch_digests ? ', patches derived and digests match' : '';
    return pass(
      `base_commit ${ctx.task.base_commit.slice(0, 12)} provisioned from ${from} (${install}${snap.reused ? ', cached environment' : ''}${derived})${snap.shallow ? `; note: ${snap.shallow}` : ''}`,
      { ...details, ...(snap.shallow && { shallow: snap.shallow }) },
    );
  } catch (e) {
    if (e instanceof UserError)
      // The derived patches are not the recorded ones, or a listed path is not in the PR.
      return fail(
        e.message,
        're-import the task from the PR commit (nanobench task import --reference) and review the difference, or retire it',
        { ...details, code: e.code },
      );
    if (!(e instanceof InfraError)) throw e;
    const env = ctx.task.environment;
    const fix =
      e.stage === 'install' && env && !ctx.sandbox
        ? `the task declares its environment (${env.dockerfile ?? env.image}), but these gates ran on this machine's toolchain: validate it where it runs, with --sandbox podman (or docker; --build-arg BASE_IMAGE=... offline)`
        : e.stage === 'install'
          ? 'make install_command work on a fresh checkout of base_commit (try it by hand in a clean clone); it runs once per environment, offline tools only if the machine is offline'
          : source.kind === 'remote'
            ? `the source is the remote ${source.location}: check the SHAs are the PR's commit and its first parent, reachable from a branch, or give a local copy with --mirror DIR (DIR/${ctx.task.repo}.git)`
            : `check that base_commit${ctx.task.pr_commit ? ' and pr_commit are full SHAs that exist' : ' is a full SHA that exists'} in ${source.location} (git cat-file -e ${ctx.task.base_commit})`;
    return fail(e.message, fix, { ...details, stage: e.stage });
  }
}
