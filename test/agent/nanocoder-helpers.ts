// Shared by the Nanocoder e2e and fixture-capture tests: a temp git repo and an AgentContext.

import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { AgentContext } from '../../src/agent/types.js';
import type { ResolvedTask } from '../../src/task/patches.js';

export interface TempTrial {
  root: string;
  workspace: string;
  scratchDir: string;
  cleanup(): void;
}

/** A committed git repo with the given files, plus a scratch dir next to it. */
export function makeTrialDirs(files: Record<string, string>): TempTrial {
  const root = mkdtempSync(path.join(tmpdir(), 'nanobench-nc-'));
  const workspace = path.join(root, 'ws');
  const scratchDir = path.join(root, 'scratch');
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(workspace, rel)), { recursive: true });
    writeFileSync(path.join(workspace, rel), content);
  }
  mkdirSync(scratchDir, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: workspace });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  return {
    root,
    workspace,
    scratchDir,
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

export function trialContext(
  t: TempTrial,
  over: Partial<AgentContext> & Pick<AgentContext, 'model' | 'endpoint'>,
): AgentContext {
  const task = { task_id: 'demo-1' } as unknown as ResolvedTask;
  return {
    task,
    mode: 'hinted',
    prompt: 'Fix the greeting in hello.txt.',
    workspace: t.workspace,
    scratchDir: t.scratchDir,
    timeoutSec: 60,
    provider: 'nanobench',
    attempt: 1,
    ...over,
  };
}
