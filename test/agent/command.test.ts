// A command agent gets the prompt in a file and on stdin; NANOBENCH_PROMPT only while it is short
// enough for the environment (Linux: 128 KiB per string, else spawn E2BIG).
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandAgent, MAX_ENV_PROMPT_BYTES } from '../../src/agent/command.js';
import type { AgentContext } from '../../src/agent/types.js';
import type { ResolvedTask } from '../../src/task/patches.js';
import { tempDir } from '../helpers/cli.js';

async function give(prompt: string) {
  const root = tempDir();
  const workspace = join(root, 'ws');
  const scratchDir = join(root, 'scratch');
  mkdirSync(workspace);
  mkdirSync(join(scratchDir, 'home'), { recursive: true });
  // Keeps stdin, then prints the prompt file's path and whether NANOBENCH_PROMPT is set.
  const agent = commandAgent(
    `cat > ${join(root, 'stdin')}; printf '%s\\n' "\${NANOBENCH_PROMPT_FILE:-unset}" "\${NANOBENCH_PROMPT+set}"`,
  );
  const ctx: AgentContext = {
    task: { task_id: 't-1' } as ResolvedTask,
    mode: 'hinted',
    prompt,
    workspace,
    scratchDir,
    timeoutSec: 60,
    provider: 'none',
    model: 'none',
    attempt: 1,
  };
  const r = await agent.run(ctx);
  expect(r.infraError).toBeUndefined();
  const [file, envPrompt] = r.stdout.split('\n');
  return {
    file,
    envPrompt,
    stdin: readFileSync(join(root, 'stdin'), 'utf8'),
    fileText: readFileSync(file, 'utf8'),
    scratchDir,
  };
}

describe('commandAgent: the prompt', () => {
  it('a short prompt: in the file, on stdin and in NANOBENCH_PROMPT', async () => {
    const g = await give('fix the bug\n');
    expect(g.file).toBe(join(g.scratchDir, 'prompt.md'));
    expect(g.fileText).toBe('fix the bug\n');
    expect(g.stdin).toBe('fix the bug\n');
    expect(g.envPrompt).toBe('set');
  });

  it('a prompt past the limit: in the file and on stdin, NANOBENCH_PROMPT left out (not cut)', async () => {
    const long = 'é'.repeat(MAX_ENV_PROMPT_BYTES / 2 + 1); // one byte over, in UTF-8
    const g = await give(long);
    expect(g.fileText).toBe(long);
    expect(g.stdin).toBe(long);
    expect(Buffer.byteLength(g.stdin)).toBe(MAX_ENV_PROMPT_BYTES + 2);
    expect(g.envPrompt).toBe('');
  });

  it('the limit is well below what Linux accepts for one environment string', () => {
    expect(MAX_ENV_PROMPT_BYTES).toBeLessThanOrEqual((128 * 1024) / 4);
  });
});
