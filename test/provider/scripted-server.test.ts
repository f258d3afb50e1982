import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseScript } from '../../src/provider/script-schema.js';
import {
  loadScripts,
  type ScriptedServer,
  startScriptedServer,
} from '../../src/provider/scripted-server.js';

const script = parseScript(
  {
    model: 'm1',
    description: 'test script',
    tasks: {
      fix: {
        steps: [
          { tool: 'read_file', args: { path: 'a.txt' } },
          {
            tools: [
              { tool: 'read_file', args: { path: 'b' } },
              { tool: 'list_directory', args: { path: '.' } },
            ],
          },
          { final: 'All fixed.' },
        ],
      },
      flaky: { variants: [{ steps: [{ final: 'right' }] }, { steps: [{ final: 'wrong' }] }] },
      nested: {
        variants: [{ variants: [{ steps: [{ final: 'a' }] }, { steps: [{ final: 'b' }] }] }],
      },
      rate: { steps: [{ fail: 'rate_limit' }] },
      quota: { steps: [{ fail: 'quota' }] },
      ctx: { steps: [{ fail: 'context_http' }] },
      ctxs: { steps: [{ fail: 'context_stream' }] },
      err500: { steps: [{ fail: 'server_error' }] },
      slow: { steps: [{ fail: 'slow', delay_ms: 300 }] },
      thinking: { steps: [{ final: 'Thought about it.', delay_ms: 200 }] },
      transient: {
        steps: [
          { final: 'After the retry.', fail_first: { fail: 'rate_limit', retry_after_sec: 2 } },
        ],
      },
      '*': { steps: [{ final: 'fallback' }] },
    },
  },
  'inline',
);

interface Sse {
  // biome-ignore lint/suspicious/noExplicitAny: SSE chunks are free-form JSON probed by the assertions
  chunks: Record<string, any>[];
  done: boolean;
}

function parseSse(text: string): Sse {
  const events = text.split('\n\n').filter(Boolean);
  expect(events.every((e) => e.startsWith('data: '))).toBe(true);
  const done = events.at(-1) === 'data: [DONE]';
  return {
    chunks: events.filter((e) => e !== 'data: [DONE]').map((e) => JSON.parse(e.slice(6))),
    done,
  };
}

describe('scripted model server', () => {
  let server: ScriptedServer;
  beforeAll(async () => {
    server = await startScriptedServer([script]);
  });
  afterAll(() => server.close());

  const history = (assistantTurns: number) => [
    { role: 'system', content: 'sys' },
    { role: 'user', content: 'go' },
    ...Array.from({ length: assistantTurns }, () => [
      { role: 'assistant', content: '', tool_calls: [] },
      { role: 'tool', tool_call_id: 'x', content: 'r' },
    ]).flat(),
  ];
  async function chat(
    task: string | undefined,
    attempt: number,
    turns: number,
    extra: object = {},
  ) {
    const base = task === undefined ? `${server.url}/v1` : server.baseUrlFor(task, attempt);
    return fetch(`${base}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ model: 'm1', messages: history(turns), stream: true, ...extra }),
    });
  }
  const finalText = (s: Sse) => s.chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('');

  it('streams a tool call as OpenAI SSE deltas, then usage and [DONE]', async () => {
    const res = await chat('fix', 1, 0);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const sse = parseSse(await res.text());
    expect(sse.done).toBe(true);
    const calls = sse.chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    expect(calls).toEqual([
      {
        index: 0,
        id: expect.any(String),
        type: 'function',
        function: { name: 'read_file', arguments: '{"path":"a.txt"}' },
      },
    ]);
    expect(sse.chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual([
      'tool_calls',
    ]);
    const usage = sse.chunks.at(-1)!;
    expect(usage.choices).toEqual([]);
    expect(usage.usage.total_tokens).toBe(
      usage.usage.prompt_tokens + usage.usage.completion_tokens,
    );
    expect(usage.usage.prompt_tokens).toBeGreaterThan(0);
  });

  it('picks the step from the number of assistant messages; parallel calls; then "Done."', async () => {
    const two = parseSse(await (await chat('fix', 1, 1)).text());
    const calls = two.chunks.flatMap((c) => c.choices[0]?.delta?.tool_calls ?? []);
    expect(calls.map((c) => [c.index, c.function.name])).toEqual([
      [0, 'read_file'],
      [1, 'list_directory'],
    ]);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
    const last = parseSse(await (await chat('fix', 1, 2)).text());
    expect(finalText(last)).toBe('All fixed.');
    expect(last.chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['stop']);
    expect(finalText(parseSse(await (await chat('fix', 1, 3)).text()))).toBe('Done.');
  });

  it('usage counts are deterministic', async () => {
    const a = parseSse(await (await chat('fix', 1, 2)).text()).chunks.at(-1)!.usage;
    const b = parseSse(await (await chat('fix', 1, 2)).text()).chunks.at(-1)!.usage;
    expect(a).toEqual(b);
  });

  it('chooses variants by (attempt-1) % n, nested too', async () => {
    const texts = [];
    for (const attempt of [1, 2, 3, 4])
      texts.push(finalText(parseSse(await (await chat('flaky', attempt, 0)).text())));
    expect(texts).toEqual(['right', 'wrong', 'right', 'wrong']);
    expect(finalText(parseSse(await (await chat('nested', 2, 0)).text()))).toBe('b');
  });

  it('falls back to "*" for unknown tasks and for the default route', async () => {
    expect(finalText(parseSse(await (await chat('other', 1, 0)).text()))).toBe('fallback');
    expect(finalText(parseSse(await (await chat(undefined, 1, 0)).text()))).toBe('fallback');
  });

  it('answers non-streaming requests with a chat.completion', async () => {
    const body = await (await chat('fix', 1, 0, { stream: false })).json();
    expect(body.object).toBe('chat.completion');
    expect(body.choices[0].message.tool_calls[0].function).toEqual({
      name: 'read_file',
      arguments: '{"path":"a.txt"}',
    });
  });

  it('injects failures', async () => {
    const rate = await chat('rate', 1, 0);
    expect(rate.status).toBe(429);
    expect(rate.headers.get('retry-after')).toBe('0');
    expect((await rate.json()).error.code).toBe('rate_limit_exceeded');
    const quota = await chat('quota', 1, 0);
    expect(quota.status).toBe(429);
    expect((await quota.json()).error.message).toContain('You exceeded your current quota');
    const ctx = await chat('ctx', 1, 0);
    expect(ctx.status).toBe(400);
    expect((await ctx.json()).error.message).toMatch(
      /^This model's maximum context length is 8192 tokens\. However, your messages resulted in \d+ tokens\./,
    );
    const ctxs = await chat('ctxs', 1, 0);
    expect(ctxs.status).toBe(200);
    const ev = parseSse(await ctxs.text());
    expect(ev.chunks[0].error.message).toContain('maximum context length');
    const e500 = await chat('err500', 1, 0);
    expect(e500.status).toBe(500);
    expect((await e500.json()).error.type).toBe('server_error');
  });

  it('a slow step delays the headers, then answers', async () => {
    const t0 = Date.now();
    const res = await chat('slow', 1, 0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
    expect(finalText(parseSse(await res.text()))).toBe('Done.');
  });

  it('any step may take delay_ms before its reply, as a provider thinking would', async () => {
    const t0 = Date.now();
    const res = await chat('thinking', 1, 0);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
    expect(finalText(parseSse(await res.text()))).toBe('Thought about it.');
  });

  it('fail_first: the first request of a turn is refused, its retry gets the step', async () => {
    const first = await chat('transient', 1, 0);
    expect(first.status).toBe(429);
    expect(first.headers.get('retry-after')).toBe('2');
    await first.text();
    const retry = await chat('transient', 1, 0);
    expect(finalText(parseSse(await retry.text()))).toBe('After the retry.');
    // Another attempt is another turn: refused once too.
    expect((await chat('transient', 2, 0)).status).toBe(429);
  });

  it('rejects an unscripted model with a clear 404 and records every request', async () => {
    const before = server.requests.length;
    const res = await fetch(`${server.baseUrlFor('fix', 1)}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt-x', messages: [], stream: true }),
    });
    expect(res.status).toBe(404);
    expect((await res.json()).error.message).toBe(
      'The scripted model server has no script for model "gpt-x" (scripted models: m1)',
    );
    expect(server.requests.slice(before)).toMatchObject([
      { taskId: 'fix', attempt: 1, model: 'gpt-x', status: 404 },
    ]);
    const ok = server.requests.find((r) => r.taskId === 'fix' && r.status === 200)!;
    expect(ok).toMatchObject({
      authorization: 'Bearer k',
      stepIndex: 0,
      outcome: 'tool_calls',
      path: '/t/fix/1/v1/chat/completions',
    });
  });
});

describe('script loading', () => {
  it('names the file and the field of a mistake', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'nb-scripts-'));
    try {
      writeFileSync(
        path.join(dir, 'a.json'),
        JSON.stringify({ model: 'a', tasks: { t: { steps: [{ final: 'x' }] } } }),
      );
      expect((await loadScripts(dir)).map((s) => s.model)).toEqual(['a']);
      writeFileSync(
        path.join(dir, 'b.json'),
        JSON.stringify({ model: 'b', tasks: { t: { steps: [{ final: 'x' }, { fail: 'boom' }] } } }),
      );
      await expect(loadScripts(dir)).rejects.toThrow(
        /b\.json: invalid model script\n {2}tasks\.t\.steps\.1\.fail: Invalid enum value/,
      );
      writeFileSync(
        path.join(dir, 'b.json'),
        JSON.stringify({
          model: 'b',
          tasks: { t: { steps: [{ tool: 'x', args: {}, extra: 1 }] } },
        }),
      );
      await expect(loadScripts(dir)).rejects.toThrow(
        /tasks\.t\.steps\.0: Unrecognized key\(s\) in object: 'extra'/,
      );
      writeFileSync(
        path.join(dir, 'b.json'),
        JSON.stringify({ model: 'b', tasks: { t: { steps: [{ say: 'x' }] } } }),
      );
      await expect(loadScripts(dir)).rejects.toThrow(/tasks\.t\.steps\.0: expected a step/);
      writeFileSync(path.join(dir, 'b.json'), JSON.stringify({ model: 'a', tasks: {} }));
      await expect(loadScripts(dir)).rejects.toThrow(
        /b\.json: model: "a" is also scripted in .*a\.json/,
      );
      writeFileSync(path.join(dir, 'b.json'), '{ nope');
      await expect(loadScripts(dir)).rejects.toThrow(/b\.json: not valid JSON/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
