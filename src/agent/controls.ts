// Control agents. The oracle applies the golden patch (must score 1.0); nop changes nothing
// (must score 0.0). A task on which either misbehaves is not admissible.
import { runShell } from '../util/process.js';
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
    const r = await runShell('git apply --whitespace=nowarn -', {
      cwd: ctx.workspace,
      input: ctx.task.ground_truth_patch,
      timeoutMs: ctx.timeoutSec * 1000,
    });
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

export const nopAgent: Agent = {
  name: 'nop',
  async run(): Promise<AgentResult> {
    return done(Date.now());
  },
};
