// Gate 2, reproducible: base_commit can be fetched from the task's source and the environment
// built at it (install command included), exactly as every trial will.
import { InfraError } from '../util/errors.js';
import type { GateContext } from './context.js';
import { fail, type GateOutcome, pass } from './types.js';

export async function reproducibleGate(ctx: GateContext): Promise<GateOutcome> {
  const source = ctx.source();
  try {
    const snap = await ctx.snapshot();
    const install = ctx.task.install_command
      ? `install command "${ctx.task.install_command}" ran`
      : 'no install command';
    return pass(
      `base_commit ${ctx.task.base_commit.slice(0, 12)} provisioned from ${source.kind} ${source.location} (${install}${snap.reused ? ', cached environment' : ''})`,
      { source: source.location, source_kind: source.kind },
    );
  } catch (e) {
    if (!(e instanceof InfraError)) throw e;
    const fix =
      e.stage === 'install'
        ? 'make install_command work on a fresh checkout of base_commit (try it by hand in a clean clone); it runs once per environment, offline tools only if the machine is offline'
        : source.kind === 'remote'
          ? `the source is the remote ${source.location}: check the SHA is the PR's parent and reachable from a branch, or give a local copy with --mirror DIR (DIR/${ctx.task.repo}.git)`
          : `check that base_commit is a full SHA that exists in ${source.location} (git cat-file -e ${ctx.task.base_commit})`;
    return fail(e.message, fix, { source: source.location, stage: e.stage });
  }
}
