// Issue 11 (4): the interface-mismatch evidence against the messages real interpreters print
// (captured by test/fixtures/interface-mismatch/capture.mjs: Python 3.10-3.13, Node 20 and 22).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isInterfaceMismatch } from '../../src/score/symbols.js';

interface Captured {
  runtime: string;
  results: { id: string; text: string; message?: string; mismatch: boolean }[];
}

const captured: Captured[] = JSON.parse(
  readFileSync(new URL('../fixtures/interface-mismatch/messages.json', import.meta.url), 'utf8'),
);

const cases = captured.flatMap((c) =>
  c.results.flatMap((r) => {
    const rows: [string, string, boolean][] = [[`${c.runtime} ${r.id}`, r.text, r.mismatch]];
    // The bare message is what vitest's JSON report keeps of a Node error.
    if (r.message !== undefined && r.message !== r.text)
      rows.push([`${c.runtime} ${r.id} (bare message)`, r.message, r.mismatch]);
    return rows;
  }),
);

describe('isInterfaceMismatch on captured interpreter messages', () => {
  it('covers every runtime the capture ran, with both kinds of case', () => {
    expect(captured.map((c) => c.runtime.split(' ')[0])).toEqual([
      'python',
      'python',
      'python',
      'python',
      'node',
      'node',
    ]);
    expect(cases.filter(([, , m]) => m).length).toBeGreaterThan(100);
    expect(cases.filter(([, , m]) => !m).length).toBeGreaterThan(40);
  });

  it.each(cases)('%s: %s -> %s', (_name, text, mismatch) => {
    expect(isInterfaceMismatch(text)).toBe(mismatch);
  });

  it('recognises the message inside a traceback, as runners print it', () => {
    const pytest = [
      'tests/test_cart.py:12: in test_total',
      '    assert total(cart, 0.2) == 12',
      'E   TypeError: len() takes exactly one argument (2 given)',
    ].join('\n');
    expect(isInterfaceMismatch(pytest)).toBe(true);
  });
});
