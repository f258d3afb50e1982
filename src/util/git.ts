// Thin wrappers over the git CLI. Every call fails loudly with git's own message.
import { execFileSync } from 'node:child_process';
import { InfraError } from './errors.js';
import { execText, type RunResult, runShell } from './process.js';

/** Environment that makes git ignore the user's config and never prompt. */
export const GIT_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'nanobench',
  GIT_AUTHOR_EMAIL: 'nanobench@localhost',
  GIT_COMMITTER_NAME: 'nanobench',
  GIT_COMMITTER_EMAIL: 'nanobench@localhost',
  // A none-as-nobody workspace on an overlay stays nobody's (src/workspace/sandbox/nobody.ts);
  // git's ownership check would refuse it. Every workspace's .git is the snapshot's again
  // before NanoBench runs git there (guardWorkspace), so there is nothing to distrust.
  GIT_CONFIG_COUNT: '1',
  GIT_CONFIG_KEY_0: 'safe.directory',
  GIT_CONFIG_VALUE_0: '*',
};

export function git(cwd: string, args: string[], input?: string): string {
  try {
    return execFileSync('git', args, {
      cwd,
      env: GIT_ENV,
      input,
      encoding: 'utf8',
      maxBuffer: 256 * 1024 * 1024,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  } catch (e) {
    throw gitFailed(cwd, args, e);
  }
}

/** git() without blocking the event loop (the trial path: agents' requests wait on it). */
export async function gitAsync(
  cwd: string,
  args: string[],
  o: { input?: string } = {},
): Promise<string> {
  try {
    return await execText('git', args, { cwd, env: GIT_ENV, input: o.input });
  } catch (e) {
    throw gitFailed(cwd, args, e);
  }
}

/** A failed git call, in git's own words. */
function gitFailed(cwd: string, args: string[], e: unknown): InfraError {
  const err = e as { stderr?: string; message: string };
  return new InfraError(
    'git',
    `git ${args.join(' ')} (in ${cwd}): ${(err.stderr || err.message).trim()}`,
  );
}

export function tryGit(cwd: string, args: string[]): string | undefined {
  try {
    return git(cwd, args);
  } catch {
    return undefined;
  }
}

/** `patch` applied to the working tree at `ws`; the caller words a failure (r.exitCode, r.stderr). */
export function applyPatch(ws: string, patch: string, timeoutMs = 60_000): Promise<RunResult> {
  return runShell('git apply --whitespace=nowarn -', { cwd: ws, input: patch, timeoutMs });
}
