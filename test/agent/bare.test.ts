import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bareResult, providerExit } from '../../src/agent/bare.js';
import {
  BARE_PROMPT_VERSION,
  parseEdits,
  parseReads,
  showFiles,
} from '../../src/agent/bare-format.js';
import {
  applyEdits,
  type BareJob,
  type Chat,
  httpChat,
  type Message,
  runBare,
} from '../../src/agent/bare-main.js';
import { parseScript } from '../../src/provider/script-schema.js';
import { pickStep } from '../../src/provider/scripted-server.js';

function workspace(): string {
  const ws = mkdtempSync(join(tmpdir(), 'bare-ws-'));
  mkdirSync(join(ws, 'src'));
  mkdirSync(join(ws, '.git'));
  writeFileSync(join(ws, 'src', 'a.js'), 'export const a = 1;\n');
  writeFileSync(join(ws, 'README.md'), '# repo\n');
  return ws;
}

const job = (o: Partial<BareJob> = {}): BareJob => ({
  baseUrl: 'http://127.0.0.1:1/v1',
  apiKey: 'k',
  model: 'm',
  mode: 'hinted',
  statement: 'Make a equal 2.',
  requiredFiles: ['src/a.js'],
  maxReads: 2,
  requestTimeoutMs: 5000,
  ...o,
});

/** A model that answers with these replies in turn, recording what it was sent. */
function scripted(replies: string[]): Chat & { seen: Message[][] } {
  const seen: Message[][] = [];
  const chat = async (messages: Message[]) => {
    seen.push(messages.map((m) => ({ ...m })));
    const content = replies[seen.length - 1];
    return content === undefined
      ? { ok: false as const, status: 500, message: 'no more replies' }
      : { ok: true as const, content, usage: { input: 10, output: 5 } };
  };
  return Object.assign(chat, { seen });
}

const edit = (path: string, body: string, fence = '```') =>
  `=== FILE: ${path}\n${fence}js\n${body}${fence}\n`;

describe('bare format', () => {
  it('parses whole-file blocks, with prose around them and a longer fence', () => {
    const reply = `Here is the fix.\n\n${edit('src/a.js', 'export const a = 2;\n')}\nand\n${edit('doc.md', 'text\n```\ninner\n```\n', '````')}`;
    const p = parseEdits(reply);
    expect(p).toEqual({
      ok: true,
      edits: [
        { path: 'src/a.js', content: 'export const a = 2;\n' },
        { path: 'doc.md', content: 'text\n```\ninner\n```\n' },
      ],
    });
  });

  it('refuses replies it cannot read, with the reason', () => {
    expect(parseEdits('I would change a.js')).toMatchObject({ ok: false, reason: /no "=== FILE/ });
    expect(parseEdits('=== FILE: a.js\nexport const a = 2;\n')).toMatchObject({
      ok: false,
      reason: 'a.js: the header is not followed by a fenced block',
    });
    expect(parseEdits('=== FILE: a.js\n```\nx\n')).toMatchObject({
      ok: false,
      reason: 'a.js: the fenced block is never closed',
    });
    expect(parseEdits(`${edit('a.js', 'x\n')}${edit('a.js', 'y\n')}`)).toMatchObject({
      ok: false,
      reason: /named twice/,
    });
  });

  it('reads READ lines once each and shows files in the answer format', () => {
    expect(parseReads('READ: src/a.js\nREAD: `b.js`\nREAD: src/a.js\nprose')).toEqual([
      'src/a.js',
      'b.js',
    ]);
    expect(showFiles([{ path: 'x', content: null }])).toContain('does not exist');
    expect(showFiles([{ path: 'x', content: '```\n' }])).toContain('````\n```\n````');
  });
});

describe('applying edits', () => {
  it('writes every file, new directories included', () => {
    const ws = workspace();
    const r = applyEdits(ws, [
      { path: 'src/a.js', content: 'export const a = 2;\n' },
      { path: 'src/new/b.js', content: 'b\n' },
    ]);
    expect(r).toEqual({ ok: true, changed: ['src/a.js', 'src/new/b.js'] });
    expect(readFileSync(join(ws, 'src/new/b.js'), 'utf8')).toBe('b\n');
  });

  it('refuses paths outside the workspace or protected, and writes nothing then', () => {
    const ws = workspace();
    symlinkSync(tmpdir(), join(ws, 'out'));
    for (const p of ['../x.js', '/etc/passwd', '.git/config', 'src/../.git/HEAD', 'out/x.js']) {
      const r = applyEdits(ws, [
        { path: 'src/a.js', content: 'changed\n' },
        { path: p, content: 'x' },
      ]);
      expect(r.ok, p).toBe(false);
      expect(readFileSync(join(ws, 'src/a.js'), 'utf8')).toBe('export const a = 1;\n');
    }
  });
});

describe('runBare', () => {
  it('hinted: one request with the statement and the required files, the change applied', async () => {
    const ws = workspace();
    const chat = scripted([edit('src/a.js', 'export const a = 2;\n')]);
    const r = await runBare(job(), ws, chat);
    expect(r).toMatchObject({
      prompt_version: BARE_PROMPT_VERSION,
      outcome: 'edited',
      requests: 1,
      files_read: ['src/a.js'],
      files_changed: ['src/a.js'],
      usage: { input: 10, output: 5 },
    });
    const user = chat.seen[0][1].content;
    expect(user).toContain('Make a equal 2.');
    expect(user).toContain('export const a = 1;');
    expect(readFileSync(join(ws, 'src/a.js'), 'utf8')).toBe('export const a = 2;\n');
  });

  it('navigation: the file list, the files asked for (missing ones said so), then the change', async () => {
    const ws = workspace();
    const chat = scripted([
      'READ: src/a.js\nREAD: src/missing.js',
      edit('src/a.js', 'export const a = 2;\n'),
    ]);
    const r = await runBare(job({ mode: 'navigation' }), ws, chat);
    expect(r).toMatchObject({
      outcome: 'edited',
      requests: 2,
      files_read: ['src/a.js'],
      files_refused: ['src/missing.js'],
    });
    const first = chat.seen[0][1].content;
    expect(first).toContain('README.md\nsrc/a.js');
    expect(first).not.toContain('.git');
    const second = chat.seen[1][3].content;
    expect(second).toContain('export const a = 1;');
    expect(second).toContain('src/missing.js: no such file');
  });

  it('navigation: reads stop at the limit, then a change is asked for', async () => {
    const ws = workspace();
    const chat = scripted(['READ: src/a.js\nREAD: README.md\nREAD: x', 'READ: src/a.js', 'no']);
    const r = await runBare(job({ mode: 'navigation', maxReads: 2 }), ws, chat);
    expect(chat.seen[1][3].content).toContain('x: the limit of 2 files is reached');
    expect(chat.seen[1][3].content).toContain('You cannot read more files');
    expect(r.files_read).toEqual(['src/a.js', 'README.md']);
    expect(r.outcome).toBe('unusable');
  });

  it('an unparseable reply is the model failure, with its reason, and nothing changes', async () => {
    const ws = workspace();
    const r = await runBare(job(), ws, scripted(['Change a to 2 in src/a.js.']));
    expect(r).toMatchObject({ outcome: 'unusable', reason: /no "=== FILE/ });
    expect(readFileSync(join(ws, 'src/a.js'), 'utf8')).toBe('export const a = 1;\n');
    const outside = await runBare(job(), ws, scripted([edit('../evil.js', 'x\n')]));
    expect(outside).toMatchObject({
      outcome: 'unusable',
      reason: /refused: \.\.\/evil\.js leaves/,
    });
  });

  it('a provider failure is reported with its status and message', async () => {
    const r = await runBare(job(), workspace(), scripted([]));
    expect(r).toMatchObject({ outcome: 'provider_error', status: 500, message: 'no more replies' });
  });

  it('writes the conversation to its transcript file', async () => {
    const ws = workspace();
    const transcriptFile = join(mkdtempSync(join(tmpdir(), 'bare-t-')), 't.json');
    await runBare(job({ transcriptFile }), ws, scripted(['nothing']));
    const t = JSON.parse(readFileSync(transcriptFile, 'utf8'));
    expect(t.map((m: Message) => m.role)).toEqual(['system', 'user', 'assistant']);
  });
});

describe('httpChat', () => {
  it('posts chat completions at temperature 0 and reads the provider error', async () => {
    const bodies: Record<string, unknown>[] = [];
    const server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => {
        raw += c;
      });
      req.on('end', () => {
        bodies.push({ url: req.url, auth: req.headers.authorization, ...JSON.parse(raw) });
        const fail = bodies.length > 1;
        res.writeHead(fail ? 429 : 200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify(
            fail
              ? { error: { message: 'Rate limit exceeded' } }
              : {
                  choices: [{ message: { role: 'assistant', content: 'hi' } }],
                  usage: { prompt_tokens: 3, completion_tokens: 1 },
                },
          ),
        );
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    try {
      const chat = httpChat(job({ baseUrl: `http://127.0.0.1:${port}/v1` }));
      const msgs: Message[] = [{ role: 'user', content: 'x' }];
      expect(await chat(msgs)).toEqual({ ok: true, content: 'hi', usage: { input: 3, output: 1 } });
      expect(await chat(msgs)).toEqual({ ok: false, status: 429, message: 'Rate limit exceeded' });
      expect(bodies[0]).toMatchObject({
        url: '/v1/chat/completions',
        auth: 'Bearer k',
        temperature: 0,
        model: 'm',
      });
    } finally {
      server.close();
    }
    const down = await httpChat(job())([{ role: 'user', content: 'x' }]);
    expect(down).toMatchObject({ ok: false, status: 0 });
  });
});

describe('bare results', () => {
  const base = { exitCode: 0, stdout: '', stderr: '', durationMs: 1, timedOut: false };
  const report = {
    prompt_version: BARE_PROMPT_VERSION,
    requests: 1,
    usage: { input: 4, output: 2 },
    files_read: ['src/a.js'],
    files_refused: [],
    files_changed: [],
  };

  it('maps the outcomes to exit kinds: unusable is the model, a refusal the provider', () => {
    const ok = bareResult({ ...report, outcome: 'edited' }, base, ['src/a.js'], '/ws');
    expect(ok).toMatchObject({ exitKind: 'success', usage: { totalTokens: 6 } });
    expect(ok.toolUse?.files_read).toMatchObject({ count: 1, required: ['src/a.js'] });
    const bad = bareResult({ ...report, outcome: 'unusable', reason: 'why' }, base, [], '/ws');
    expect(bad.exitKind).toBe('unusable_edit');
    expect(bad.meta).toMatchObject({
      bare: { reason: 'why', prompt_version: BARE_PROMPT_VERSION },
    });
    expect(providerExit(429, 'Rate limit exceeded')).toBe('rate_limited');
    expect(providerExit(401, 'bad key')).toBe('auth_failed');
    expect(providerExit(400, "This model's maximum context length is 8192 tokens")).toBe(
      'context_exceeded',
    );
    expect(providerExit(0, 'TypeError: ECONNREFUSED')).toBe('unreachable');
  });
});

describe('scripted replies for bare', () => {
  it("a request without tools gets the script's bare section, else its tasks", () => {
    const withBare = parseScript(
      {
        model: 'm',
        tasks: { '*': { steps: [{ tool: 'read_file', args: { path: 'a' } }] } },
        bare: { t1: { steps: [{ final: 'blocks' }] }, '*': { steps: [{ final: 'other' }] } },
      },
      'm',
    );
    expect(pickStep(withBare, 't1', 1, 0, true)).toEqual({ final: 'blocks' });
    expect(pickStep(withBare, 't2', 1, 0, true)).toEqual({ final: 'other' });
    expect(pickStep(withBare, 't1', 1, 0, false)).toMatchObject({ tool: 'read_file' });
    const without = parseScript({ model: 'n', tasks: { '*': { steps: [{ final: 'x' }] } } }, 'n');
    expect(pickStep(without, 't1', 1, 0, true)).toEqual({ final: 'x' });
  });
});
