// `command:<shell>`: runs a shell command in the workspace. Used for scripted agents in tests
// and for wrapping other agents. The task travels in NANOBENCH_* variables.
import { resolve } from 'node:path';
import { runShell } from '../util/process.js';
import type { Agent, AgentContext, AgentResult } from './types.js';

export function commandAgent(command: string, baseDir = process.cwd()): Agent {
  // A leading relative script path is resolved against where the user ran nanobench,
  // because the command itself runs inside the workspace.
  const resolved = command.replace(/^(\.{1,2}\/\S+)/, (p) => resolve(baseDir, p));
  return {
    name: `command:${command}`,
    async run(ctx: AgentContext): Promise<AgentResult> {
      const r = await runShell(resolved, {
        cwd: ctx.workspace,
        timeoutMs: ctx.timeoutSec * 1000,
        signal: ctx.signal,
        env: {
          ...process.env,
          ...ctx.env,
          HOME: `${ctx.scratchDir}/home`,
          NANOBENCH_TASK_ID: ctx.task.task_id,
          NANOBENCH_MODE: ctx.mode,
          NANOBENCH_ATTEMPT: String(ctx.attempt),
          NANOBENCH_PROMPT: ctx.prompt,
        },
      });
      return {
        exitCode: r.exitCode,
        exitKind: r.timedOut
          ? 'timeout'
          : r.signal
            ? 'signal'
            : r.exitCode === 0
              ? 'success'
              : 'error',
        stdout: r.stdout,
        stderr: r.stderr,
        durationMs: r.durationMs,
        timedOut: r.timedOut,
      };
    },
  };
}
