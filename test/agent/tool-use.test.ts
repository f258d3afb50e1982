// Files read and tool calls, from the tool calls of Nanocoder's --json report: the report the
// real binary printed (test/fixtures/nanocoder/success.stdout) and the cases around it.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseNanocoderReport } from '../../src/agent/nanocoder-report.js';
import { MAX_PATHS, summarizeToolUse, type ToolCallLike } from '../../src/agent/tool-use.js';

const WS = '/tmp/ws';
const call = (
  name: string,
  args: Record<string, unknown>,
  result: string | null = 'x',
  error: string | null = null,
): ToolCallLike => ({
  name,
  arguments: args,
  result,
  error,
});

describe('summarizeToolUse', () => {
  it("reads a real report's tool calls", () => {
    const stdout = readFileSync(
      path.join(import.meta.dirname, '..', 'fixtures', 'nanocoder', 'success.stdout'),
      'utf8',
    );
    const parsed = parseNanocoderReport(stdout);
    if (!parsed.ok) throw new Error(parsed.error);
    const u = summarizeToolUse(parsed.report.toolCalls, WS, ['hello.txt', 'other.txt']);
    expect(u).toEqual({
      calls: 2,
      failed: 0,
      by_tool: { read_file: 1, string_replace: 1 },
      files_read: {
        count: 1,
        bytes: Buffer.byteLength('helo world\n'),
        paths: ['hello.txt'],
        required: ['hello.txt'],
        required_total: 2,
      },
    });
  });

  it('counts distinct files with content: not metadata, not failed reads; bytes of every read', () => {
    const u = summarizeToolUse(
      [
        call('read_file', { path: 'src/a.js' }, 'ab'),
        call('read_file', { path: './src/a.js', start_line: 1, end_line: 1 }, 'a'),
        call('read_file', { path: `${WS}/src/b.js` }, 'é'),
        call('read_file', { path: 'big.bin', metadata_only: true }, 'File Information ...'),
        call('read_file', { path: 'missing.js' }, null, 'File "missing.js" does not exist'),
        call('list_directory', { path: 'src' }, 'a.js\nb.js'),
        call('execute_bash', { command: 'cat src/c.js' }, 'c'),
      ],
      WS,
      ['src/b.js', 'src/c.js'],
    );
    expect(u.calls).toBe(7);
    expect(u.failed).toBe(1);
    expect(u.by_tool).toEqual({ read_file: 5, list_directory: 1, execute_bash: 1 });
    expect(u.files_read).toEqual({
      count: 2,
      bytes: 2 + 1 + 2,
      paths: ['src/a.js', 'src/b.js'],
      required: ['src/b.js'],
      required_total: 2,
    });
  });

  it('keeps a path outside the workspace absolute, and caps the list it stores', () => {
    const many = Array.from({ length: MAX_PATHS + 5 }, (_, i) =>
      call('read_file', { path: `f${String(i).padStart(3, '0')}.txt` }),
    );
    const u = summarizeToolUse([...many, call('read_file', { path: '../etc/passwd' })], WS, []);
    expect(u.files_read.count).toBe(MAX_PATHS + 6);
    expect(u.files_read.paths).toHaveLength(MAX_PATHS);
    expect(u.files_read.paths_truncated).toBe(true);
    expect(
      summarizeToolUse([call('read_file', { path: '../x' })], WS, []).files_read.paths,
    ).toEqual(['/tmp/x']);
  });
});
