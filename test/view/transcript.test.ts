// The transcript of a trial: from its cassette (the model's replies, tool calls and the results
// sent back), merged with Nanocoder's report (which calls failed), or from the report alone.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CASSETTE_TYPE, CassetteWriter, type Exchange } from '../../src/provider/cassette.js';
import { buildTranscript, parseReply } from '../../src/view/transcript.js';
import { tempDir } from '../helpers/cli.js';

const sse = (...chunks: unknown[]) =>
  `${chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('')}data: [DONE]\n\n`;
const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});
const call = (index: number, id: string, name: string, args: string) =>
  delta({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: args } }] });

const SYSTEM = { role: 'system', content: 'You are Nanocoder.' };
const USER = { role: 'user', content: 'Fix padEnd.' };
const A1 = {
  role: 'assistant',
  content: null,
  tool_calls: [
    {
      id: 'c1',
      type: 'function',
      function: { name: 'read_file', arguments: '{"path":"src/pad.js"}' },
    },
    {
      id: 'c2',
      type: 'function',
      function: { name: 'read_file', arguments: '{"path":"nope.js"}' },
    },
  ],
};

function exchange(i: number, messages: unknown[], body: string, status = 200): Exchange {
  return {
    type: 'exchange',
    index: i,
    source: 'upstream',
    request: { model: 'm', messages },
    response: { status, body },
    usage: { input: 100 + i, output: 10 + i } as Exchange['usage'],
    total_ms: 5,
  };
}

function cassette(exchanges: Exchange[]): string {
  const file = join(tempDir('nb-transcript-'), 'cassette.jsonl');
  const w = new CassetteWriter(
    file,
    {
      type: CASSETTE_TYPE,
      version: 1,
      task_id: 't',
      mode: 'hinted',
      attempt: 1,
      provider: 'p',
      model: 'm',
      trial_key: 'k',
      recorded_at: '2026-01-01T00:00:00Z',
      upstream: 'http://x',
    },
    (s) => s,
  );
  for (const e of exchanges) w.append(e);
  return file;
}

const TOOL1 = { role: 'tool', tool_call_id: 'c1', content: 'export function padEnd() {}' };
const TOOL2 = { role: 'tool', tool_call_id: 'c2', content: 'Error: no such file' };
const A2 = {
  role: 'assistant',
  content: null,
  tool_calls: [
    {
      id: 'c3',
      type: 'function',
      function: {
        name: 'string_replace',
        arguments: '{"path":"src/pad.js","old_str":"a","new_str":"b"}',
      },
    },
  ],
};
const TOOL3 = { role: 'tool', tool_call_id: 'c3', content: 'Replaced.' };

const EXCHANGES = () => [
  exchange(
    0,
    [SYSTEM, USER],
    sse(
      delta({ role: 'assistant', content: 'Let me look.' }),
      call(0, 'c1', 'read_file', '{"path":'),
      delta({ tool_calls: [{ index: 0, function: { arguments: '"src/pad.js"}' } }] }),
      call(1, 'c2', 'read_file', '{"path":"nope.js"}'),
      delta({}, 'tool_calls'),
    ),
  ),
  exchange(1, [SYSTEM, USER, A1, TOOL1, TOOL2], '{"error":{"message":"rate limited"}}', 429),
  exchange(
    2,
    [SYSTEM, USER, A1, TOOL1, TOOL2],
    JSON.stringify({
      choices: [{ message: A2, finish_reason: 'tool_calls' }],
    }),
  ),
  exchange(
    3,
    [SYSTEM, USER, A1, TOOL1, TOOL2, A2, TOOL3],
    sse(delta({ content: 'Done.' }, 'stop')),
  ),
];

const REPORT = JSON.stringify({
  kind: 'success',
  exitCode: 0,
  finalText: 'Let me look.Done.',
  reasoning: null,
  toolCalls: [
    {
      name: 'read_file',
      arguments: { path: 'src/pad.js' },
      result: 'export function padEnd() {}',
      error: null,
    },
    { name: 'read_file', arguments: { path: 'nope.js' }, result: null, error: 'no such file' },
    {
      name: 'string_replace',
      arguments: { path: 'src/pad.js', old_str: 'a', new_str: 'b' },
      result: 'Replaced.',
      error: null,
    },
  ],
  filesChanged: ['src/pad.js'],
});

describe('the transcript', () => {
  it('from a cassette: each request a step, tool calls with arguments and results, failures', () => {
    const t = buildTranscript({ cassette: cassette(EXCHANGES()), agentStdout: REPORT });
    expect(t.source).toBe('cassette');
    expect(t.system).toBe('You are Nanocoder.');
    expect(t.prompt).toBe('Fix padEnd.');
    expect(t.steps.map((s) => [s.n, s.status, s.text, s.tools.map((c) => c.name)])).toEqual([
      [1, 200, 'Let me look.', ['read_file', 'read_file']],
      [2, 429, '', []],
      [3, 200, '', ['string_replace']],
      [4, 200, 'Done.', []],
    ]);
    const [read, missing] = t.steps[0].tools;
    // arguments streamed in pieces are joined, then parsed
    expect(read).toEqual({
      id: 'c1',
      name: 'read_file',
      arguments: { path: 'src/pad.js' },
      result: 'export function padEnd() {}',
      error: null,
    });
    // only Nanocoder's report knows the call failed
    expect(missing.error).toBe('no such file');
    expect(t.steps[1].failure).toBe('HTTP 429: rate limited');
    expect(t.steps[0]).toMatchObject({
      usage: { input: 100, output: 10 },
      finish_reason: 'tool_calls',
    });
    expect(t.final_text).toBe('Let me look.Done.');
    expect(t.outcome).toEqual({ kind: 'success', message: null });
    // failed calls read nothing
    expect(t.files).toEqual({ read: ['src/pad.js'], written: ['src/pad.js'] });
    expect(t.notes).toEqual([]);
  });

  it("without a cassette, Nanocoder's report is the transcript; neither: none", () => {
    const t = buildTranscript({ cassette: null, agentStdout: REPORT });
    expect(t.source).toBe('nanocoder-report');
    expect(t.steps).toHaveLength(1);
    expect(t.steps[0].tools.map((c) => [c.name, c.error])).toEqual([
      ['read_file', null],
      ['read_file', 'no such file'],
      ['string_replace', null],
    ]);
    expect(t.notes[0]).toMatch(/no cassette/);
    const none = buildTranscript({ cassette: '/nowhere.jsonl', agentStdout: 'not json' });
    expect(none).toMatchObject({ source: 'none', steps: [], outcome: null });
  });

  it('a damaged cassette is a note, not a failed page', () => {
    const file = join(tempDir('nb-transcript-'), 'cassette.jsonl');
    writeFileSync(file, '{"type":"nanobench-cassette","version":1}\n{broken\n');
    const t = buildTranscript({ cassette: file, agentStdout: REPORT });
    expect(t.notes[0]).toMatch(/could not be read: .*line 2 is not JSON/);
    expect(t.source).toBe('nanocoder-report');
  });

  it('reads a reply that was cut short, and an error event inside a 200 stream', () => {
    expect(
      parseReply('data: {"choices":[{"delta":{"content":"par"}}]}\n\ndata: {"choi'),
    ).toMatchObject({
      text: 'par',
    });
    expect(parseReply(sse({ error: { message: 'overloaded' } })).error).toBe('overloaded');
  });
});
