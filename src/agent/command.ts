// `command:<shell>`: runs a shell command in the workspace. Used for scripted agents in tests
// and for wrapping other agents. The task travels in NANOBENCH_* variables.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { runProcessGroup } from './process-group.js';
import type { Agent, AgentContext, AgentResult } from './types.js';

export function commandAgent(command: string, baseDir = process.cwd()): Agent {
  // A leading relative script path is resolved against where the user ran nanobench,
  // because the command itself runs inside the workspace.
  const resolved = command.replace(/^(\.{1,2}\/\S+)/, (p) => resolve(baseDir, p));
  // In a sandbox the script itself must be visible (read-only); its directory is not.
  const script = /^(\/\S+)/.exec(resolved)?.[1];
  const readOnly = script && existsSync(script) ? [script] : [];
  return {
    name: `command:${command}`,
    async run(ctx: AgentContext): Promise<AgentResult> {
      const sh = ctx.sandbox?.wrap('/bin/sh', ['-c', resolved], readOnly) ?? {
        command: '/bin/sh',
        args: ['-c', resolved],
      };
      const r = await runProcessGroup({
        ...sh,
        cwd: ctx.workspace,
        timeoutMs: ctx.timeoutSec * 1000,
        signal: ctx.signal,
        killGraceMs: 2000,
        tag: ctx.sandbox?.tag,
        env: {
          ...(process.env as Record<string, string>),
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
        ...(r.spawnError && { infraError: `could not start the agent: ${r.spawnError}` }),
      };
    },
  };
}
