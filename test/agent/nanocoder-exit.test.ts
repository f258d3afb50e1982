// Classifier and report parsing on outputs captured from the real Nanocoder 1.30 binary
// (test/fixtures/nanocoder, see its README), plus the report schema in its two forms.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyNanocoderExit } from '../../src/agent/nanocoder-exit.js';
import { NanocoderReportSchema, parseNanocoderReport } from '../../src/agent/nanocoder-report.js';
import type { ExitKind } from '../../src/agent/types.js';
import { validateAgainst } from '../helpers/json-schema.js';

const DIR = path.join(import.meta.dirname, '..', 'fixtures', 'nanocoder');

function fixture(name: string) {
  const facts = JSON.parse(readFileSync(path.join(DIR, `${name}.json`), 'utf8'));
  return {
    ...facts,
    stdout: readFileSync(path.join(DIR, `${name}.stdout`), 'utf8'),
    stderr: readFileSync(path.join(DIR, `${name}.stderr`), 'utf8'),
  } as {
    exitCode: number | null;
    signal: NodeJS.Signals | null;
    timedOut: boolean;
    stdout: string;
    stderr: string;
  };
}

const EXPECTED: Record<string, ExitKind> = {
  success: 'success',
  rate_limit: 'rate_limited',
  quota: 'quota_exceeded',
  context_http: 'context_exceeded',
  context_stream: 'context_exceeded',
  server_error: 'server_error',
  auth: 'auth_failed',
  forbidden: 'auth_failed',
  billing: 'quota_exceeded',
  request_timeout: 'request_timeout',
  unreachable: 'unreachable',
  connection_reset: 'unreachable',
  timeout: 'timeout',
  tool_approval: 'tool_approval_required',
  empty_reply: 'error',
  model_not_found: 'model_not_found',
  unknown_tool: 'success',
  write_refused: 'success',
  max_turns: 'success',
};

describe('classifyNanocoderExit on captured outputs', () => {
  for (const [name, kind] of Object.entries(EXPECTED)) {
    it(`${name} -> ${kind}`, () => {
      const f = fixture(name);
      const parsed = parseNanocoderReport(f.stdout);
      if (!parsed.ok) expect(parsed.empty, parsed.error).toBe(true); // never a broken report
      const report = parsed.ok ? parsed.report : undefined;
      expect(classifyNanocoderExit({ ...f, report })).toBe(kind);
    });
  }

  it('model-server failures print no report, whatever the exit code', () => {
    for (const name of [
      'rate_limit',
      'quota',
      'context_http',
      'context_stream',
      'server_error',
      'unreachable',
      'timeout',
    ])
      expect(fixture(name).stdout, name).toBe('');
    // Our SIGTERM makes Nanocoder exit 0 with nothing on stdout: only timedOut tells.
    expect(fixture('timeout').exitCode).toBe(0);
  });

  it('never calls an empty stdout a success', () => {
    expect(classifyNanocoderExit({ exitCode: 0, signal: null, timedOut: false, stderr: '' })).toBe(
      'error',
    );
  });

  it('signals and cancellation', () => {
    expect(
      classifyNanocoderExit({ exitCode: null, signal: 'SIGKILL', timedOut: false, stderr: '' }),
    ).toBe('signal');
    expect(
      classifyNanocoderExit({
        exitCode: 0,
        signal: null,
        timedOut: false,
        aborted: true,
        stderr: '',
      }),
    ).toBe('signal');
  });

  it('classifies an error report by its message and the llama.cpp context wording', () => {
    const report = NanocoderReportSchema.parse({
      kind: 'error',
      exitCode: 1,
      finalText: '',
      reasoning: null,
      toolCalls: [],
      filesChanged: [],
      message: 'Bad request: the request exceeds the available context size, try increasing it',
    });
    expect(
      classifyNanocoderExit({ exitCode: 1, signal: null, timedOut: false, stderr: '', report }),
    ).toBe('context_exceeded');
  });
});

describe('the --json report schema (zod and schemas/nanocoder-report.schema.json)', () => {
  const captured = Object.keys(EXPECTED)
    .map((n) => [n, fixture(n).stdout] as const)
    .filter(([, s]) => s.trim());

  it('both accept every captured report', () => {
    expect(captured.map(([n]) => n).sort()).toEqual(
      [
        'empty_reply',
        'max_turns',
        'success',
        'tool_approval',
        'unknown_tool',
        'write_refused',
      ].sort(),
    );
    for (const [name, stdout] of captured) {
      const payload = JSON.parse(stdout);
      expect(NanocoderReportSchema.safeParse(payload).success, name).toBe(true);
      expect(validateAgainst('nanocoder-report.schema.json', payload), name).toEqual([]);
    }
  });

  const good = JSON.parse(fixture('success').stdout);
  const bad: Record<string, (r: Record<string, unknown>) => unknown> = {
    'missing kind': ({ kind, ...r }) => r,
    'unknown kind': (r) => ({ ...r, kind: 'done' }),
    'exit code contradicts kind': (r) => ({ ...r, exitCode: 1 }),
    'extra top-level field': (r) => ({ ...r, model: 'x' }),
    'finalText not a string': (r) => ({ ...r, finalText: null }),
    'tool call without error': (r) => ({
      ...r,
      toolCalls: [{ name: 'read_file', arguments: {}, result: 'x' }],
    }),
    'tool call arguments as a string': (r) => ({
      ...r,
      toolCalls: [{ name: 'a', arguments: '{}', result: null, error: null }],
    }),
    'negative usage': (r) => ({
      ...r,
      usage: { inputTokens: -1, outputTokens: 0, totalTokens: 0 },
    }),
    'usage with extra field': (r) => ({ ...r, usage: { ...(r.usage as object), cost: 1 } }),
    'error without message': (r) => ({ ...r, kind: 'error', exitCode: 1 }),
    'approval without toolNames': (r) => ({ ...r, kind: 'tool-approval-required', exitCode: 2 }),
    'filesChanged of numbers': (r) => ({ ...r, filesChanged: [1] }),
  };
  for (const [what, mutate] of Object.entries(bad)) {
    it(`both reject: ${what}`, () => {
      const payload = mutate(structuredClone(good));
      expect(NanocoderReportSchema.safeParse(payload).success).toBe(false);
      expect(validateAgainst('nanocoder-report.schema.json', payload)).not.toEqual([]);
    });
  }

  it('parseNanocoderReport names the field and what was expected', () => {
    const r = parseNanocoderReport(JSON.stringify({ ...good, kind: 'done', finalText: 3 }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.empty).toBe(false);
    expect(r.error).toContain('kind: expected one of success, error, tool-approval-required');
    expect(r.error).toContain('finalText: expected string, got number');
    expect(parseNanocoderReport('  \n')).toMatchObject({ ok: false, empty: true });
    expect(parseNanocoderReport('[info] log line\n{}')).toMatchObject({ ok: false, empty: false });
  });
});
