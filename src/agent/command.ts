// `command:<shell>`: runs a shell command in the workspace. Used for scripted agents in tests
// and for wrapping other agents. The task travels in NANOBENCH_* variables; the prompt in a file
// (NANOBENCH_PROMPT_FILE) and on stdin, and in NANOBENCH_PROMPT too when it is short. Nothing else
// of NanoBench's environment but its allow-list (agent-env.ts).
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { runProcessGroup } from '../util/process-group.js';
import { agentEnv } from './agent-env.js';
import type { Agent, AgentContext, AgentResult } from './types.js';

/**
 * NANOBENCH_PROMPT is set only for prompts up to this many bytes (UTF-8). Linux refuses to start a
 * process with one environment string over 128 KiB (MAX_ARG_STRLEN: spawn E2BIG), and all of
 * them together share the argument space with the command line.
 */
export const MAX_ENV_PROMPT_BYTES = 32 * 1024;

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
      // In the trial's scratch directory: outside the workspace (not part of the diff), and
      // visible read-write inside the sandbox at the same path.
      const promptFile = join(ctx.scratchDir, 'prompt.md');
      await writeFile(promptFile, ctx.prompt);
      const env = agentEnv({
        ...ctx.env,
        HOME: `${ctx.scratchDir}/home`,
        NANOBENCH_TASK_ID: ctx.task.task_id,
        NANOBENCH_MODE: ctx.mode,
        NANOBENCH_ATTEMPT: String(ctx.attempt),
        NANOBENCH_PROMPT_FILE: promptFile,
        NANOBENCH_PROMPT: ctx.prompt,
      });
      // A long prompt is left out rather than cut: an agent must not work from half the task.
      if (Buffer.byteLength(ctx.prompt) > MAX_ENV_PROMPT_BYTES) delete env.NANOBENCH_PROMPT;
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
        env,
        stdin: ctx.prompt,
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
