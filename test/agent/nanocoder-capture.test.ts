// Re-captures test/fixtures/nanocoder/* from the REAL Nanocoder binary. Skipped unless
// NANOBENCH_CAPTURE=1:   NANOBENCH_CAPTURE=1 npx vitest run test/agent/nanocoder-capture.test.ts
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { NanocoderAgent } from '../../src/agent/nanocoder.js';
import { parseScript } from '../../src/provider/script-schema.js';
import { type ScriptedServer, startScriptedServer } from '../../src/provider/scripted-server.js';
import { runProcessGroup } from '../../src/util/process-group.js';
import { makeTrialDirs, trialContext } from './nanocoder-helpers.js';

const OUT = path.join(import.meta.dirname, '..', 'fixtures', 'nanocoder');
const MODEL = 'capture-model';
const readThenReplace = [
  { tool: 'read_file', args: { path: 'hello.txt' } },
  { tool: 'string_replace', args: { path: 'hello.txt', old_str: 'helo', new_str: 'hello' } },
  { final: 'Fixed the typo in hello.txt.' },
];
const script = parseScript(
  {
    model: MODEL,
    description: 'one task per captured case',
    tasks: {
      success: { steps: readThenReplace },
      rate_limit: { steps: [{ fail: 'rate_limit' }] },
      quota: { steps: [{ fail: 'quota' }] },
      context_http: {
        steps: [{ tool: 'read_file', args: { path: 'hello.txt' } }, { fail: 'context_http' }],
      },
      context_stream: { steps: [{ fail: 'context_stream' }] },
      server_error: { steps: [{ fail: 'server_error' }] },
      auth: { steps: [{ fail: 'auth' }] },
      forbidden: { steps: [{ fail: 'forbidden' }] },
      billing: { steps: [{ fail: 'billing' }] },
      request_timeout: { steps: [{ fail: 'slow', delay_ms: 5000 }] },
      timeout: { steps: [{ fail: 'slow', delay_ms: 60000 }] },
      empty_reply: { steps: [{ final: '' }] },
      unknown_tool: { steps: [{ tool: 'no_such_tool', args: {} }] },
      write_refused: {
        steps: [{ tool: 'write_file', args: { path: 'hello.txt', content: 'x' } }, { final: 'ok' }],
      },
      max_turns: {
        steps: [1, 2, 3, 4].map(() => ({ tool: 'read_file', args: { path: 'hello.txt' } })),
      },
      tool_approval: { steps: [{ tool: 'execute_bash', args: { command: 'echo hi' } }] },
    },
  },
  'capture script',
);

describe.skipIf(process.env.NANOBENCH_CAPTURE !== '1')('capture real Nanocoder outputs', () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer([script]);
  });
  afterAll(() => server.close());

  async function capture(
    name: string,
    o: {
      model?: string;
      baseUrl?: string;
      timeoutSec?: number;
      requestTimeoutMs?: number;
      maxTurns?: number;
    } = {},
  ) {
    const t = makeTrialDirs({ 'hello.txt': 'helo world\n' });
    try {
      // preflight off: the point is to record what Nanocoder itself prints.
      const agent = new NanocoderAgent({
        requestTimeoutMs: o.requestTimeoutMs ?? 30_000,
        maxTurns: o.maxTurns,
        preflight: false,
      });
      const ctx = trialContext(t, {
        model: o.model ?? MODEL,
        endpoint: { baseUrl: o.baseUrl ?? server.baseUrlFor(name, 1), apiKey: 'dummy' },
        timeoutSec: o.timeoutSec ?? 90,
      });
      const r = await agent.run(ctx);
      save(name, r.stdout, r.stderr, {
        exitCode: r.exitCode,
        signal: (r.meta?.signal as string) ?? null,
        timedOut: r.timedOut,
        durationMs: r.durationMs,
      });
    } finally {
      t.cleanup();
    }
  }

  function save(name: string, stdout: string, stderr: string, facts: object) {
    writeFileSync(path.join(OUT, `${name}.stdout`), stdout);
    writeFileSync(path.join(OUT, `${name}.stderr`), stderr);
    const requests = server.requests
      .filter((r) => r.taskId === name)
      .map((r) => `${r.status} ${r.outcome}`);
    writeFileSync(
      path.join(OUT, `${name}.json`),
      `${JSON.stringify({ case: name, ...facts, serverSaw: requests }, null, 2)}\n`,
    );
  }

  for (const name of [
    'success',
    'rate_limit',
    'quota',
    'context_http',
    'context_stream',
    'server_error',
    'auth',
    'forbidden',
    'billing',
    'empty_reply',
    'unknown_tool',
    'write_refused',
  ])
    it(name, () => capture(name));
  it('max_turns', () => capture('max_turns', { maxTurns: 2 }));
  it('request_timeout', () => capture('request_timeout', { requestTimeoutMs: 1000 }));
  it('timeout', () => capture('timeout', { timeoutSec: 8 }));
  it('model_not_found', () => capture('model_not_found', { model: 'unscripted-model' }));
  it('unreachable', async () => {
    // A port nothing listens on (ECONNREFUSED). Port 9 would give undici's "bad port" instead.
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const { port } = probe.address() as { port: number };
    await new Promise((r) => probe.close(r));
    await capture('unreachable', { baseUrl: `http://127.0.0.1:${port}/v1` });
  });
  it('connection_reset', async () => {
    const rst = createServer((s) => s.destroy());
    await new Promise<void>((r) => rst.listen(0, '127.0.0.1', () => r()));
    const { port } = rst.address() as { port: number };
    try {
      await capture('connection_reset', { baseUrl: `http://127.0.0.1:${port}/v1` });
    } finally {
      rst.close();
    }
  });

  // Not reachable through the adapter (always --mode yolo): spawn with the default mode.
  it('tool_approval', async () => {
    const agent = new NanocoderAgent();
    const { build, node } = await agent.prepare();
    const t = makeTrialDirs({ 'hello.txt': 'helo world\n' });
    try {
      const providers = JSON.stringify([
        {
          name: 'nanobench',
          baseUrl: server.baseUrlFor('tool_approval', 1),
          apiKey: 'dummy',
          models: [MODEL],
          contextWindow: 32768,
        },
      ]);
      const p = await runProcessGroup({
        command: node.path,
        args: [
          build.cliPath,
          '--provider',
          'nanobench',
          '--model',
          MODEL,
          '--trust-directory',
          '--plain',
          '--json',
          'run',
          'say hi',
        ],
        cwd: t.workspace,
        env: {
          PATH: `${path.dirname(node.path)}:${process.env.PATH}`,
          HOME: t.scratchDir,
          NANOCODER_CONFIG_DIR: `${t.scratchDir}/config`,
          NANOCODER_DATA_DIR: `${t.scratchDir}/data`,
          NANOCODER_PROVIDERS: providers,
        },
        timeoutMs: 60_000,
      });
      save('tool_approval', p.stdout, p.stderr, {
        exitCode: p.exitCode,
        signal: p.signal,
        timedOut: p.timedOut,
        durationMs: p.durationMs,
      });
    } finally {
      t.cleanup();
    }
  });
});
