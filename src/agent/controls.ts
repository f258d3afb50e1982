// Control agents. The oracle applies the golden patch (must score 1.0); nop changes nothing
// (must score 0.0). A task on which either misbehaves is not admissible.
import { isHarborTask } from '../task/harbor.js';
import type { ResolvedTask } from '../task/patches.js';
import { applyPatch } from '../util/git.js';
import { runProcessGroup } from '../util/process-group.js';
import { agentEnv } from './agent-env.js';
import type { Agent, AgentContext, AgentResult } from './types.js';

function done(start: number, extra: Partial<AgentResult> = {}): AgentResult {
  return {
    exitCode: 0,
    exitKind: 'success',
    stdout: '',
    stderr: '',
    durationMs: Date.now() - start,
    timedOut: false,
    ...extra,
  };
}

export const oracleAgent: Agent = {
  name: 'oracle',
  async run(ctx: AgentContext): Promise<AgentResult> {
    const start = Date.now();
    if (isHarborTask(ctx.task)) return solveHarbor(ctx, start);
    const r = await applyPatch(
      ctx.workspace,
      (ctx.task as ResolvedTask).ground_truth_patch,
      ctx.timeoutSec * 1000,
    );
    if (r.exitCode !== 0)
      return done(start, {
        exitCode: r.exitCode,
        exitKind: 'error',
        stderr: r.stderr,
        infraError: `the golden patch of ${ctx.task.task_id} does not apply at base_commit: ${r.stderr.trim()}`,
      });
    return done(start, { stdout: r.stdout, stderr: r.stderr });
  },
};

/** Where a Harbor task's solution/ is mounted for the oracle (and only for it). */
export const SOLUTION_MOUNT = '/solution';

/**
 * A Harbor task's oracle runs its solution/solve.sh in the agent's sandbox, where Harbor runs it:
 * in the task's environment, in its WORKDIR, with solution/ at /solution.
 */
async function solveHarbor(ctx: AgentContext, start: number): Promise<AgentResult> {
  const script = `if command -v bash >/dev/null 2>&1; then exec bash ${SOLUTION_MOUNT}/solve.sh; else exec sh ${SOLUTION_MOUNT}/solve.sh; fi`;
  const sh = ctx.sandbox?.wrap('/bin/sh', ['-c', script]) ?? {
    command: '/bin/sh',
    args: ['-c', script],
  };
  const r = await runProcessGroup({
    ...sh,
    cwd: ctx.workspace,
    timeoutMs: ctx.timeoutSec * 1000,
    signal: ctx.signal,
    tag: ctx.sandbox?.tag,
    env: agentEnv({ ...ctx.env, HOME: `${ctx.scratchDir}/home` }),
  });
  const failed = r.exitCode !== 0 || r.timedOut;
  return done(start, {
    exitCode: r.exitCode,
    exitKind: r.timedOut ? 'timeout' : failed ? 'error' : 'success',
    stdout: r.stdout,
    stderr: r.stderr,
    timedOut: r.timedOut,
    ...(failed && {
      infraError: `solution/solve.sh of ${ctx.task.task_id} ${r.timedOut ? 'timed out' : `exited ${r.exitCode}`}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`,
    }),
  });
}

export const nopAgent: Agent = {
  name: 'nop',
  async run(): Promise<AgentResult> {
    return done(Date.now());
  },
};
