// Progress lines say how long the run has taken and, at the pace of the trials this process
// finished, how long it still needs.
import { describe, expect, it } from 'vitest';
import { clockText, etaText, progressPrinter } from '../../src/cli/progress.js';
import type { ProgressEvent } from '../../src/run/runner.js';
import { trial } from '../report/make-trials.js';

describe('progress', () => {
  it('formats durations and the time left', () => {
    expect(clockText(65_000)).toBe('1:05');
    expect(clockText(3_723_000)).toBe('1:02:03');
    expect(etaText(10_000, 0, 4)).toBe('0:10 elapsed');
    expect(etaText(60_000, 2, 3)).toBe('1:00 elapsed, about 1:30 left');
    expect(etaText(60_000, 2, 0)).toBe('1:00 elapsed');
  });

  it('counts only the trials run here toward the pace (a resume)', () => {
    let t = 0;
    const out: string[] = [];
    const io = { stdout: process.stdout, stderr: { write: (s: string) => out.push(s) } } as never;
    const p = progressPrinter(io, () => t);
    p.plan(4, 10, 'r1'); // six stored before
    t = 20_000;
    const e = { done: 7, total: 10, trial: trial({ task_id: 'x-1' }) } as ProgressEvent;
    p.progress(e);
    // A declared provider is named with its model (a run may span providers).
    expect(out.at(-1)).toBe(
      '[7/10] x-1 p/m hinted #1: pass 1.00 · 0:20 elapsed, about 1:00 left\n',
    );
  });
});
