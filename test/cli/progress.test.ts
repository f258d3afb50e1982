// Progress lines say how long the run has taken and, at the pace of the trials this process
// finished, how long it still needs.
import { describe, expect, it } from 'vitest';
import {
  clockText,
  etaMinutes,
  etaText,
  poolsText,
  progressPrinter,
} from '../../src/cli/progress.js';
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

  it('shows the pools, the run and its ETA in minutes', () => {
    const c = { agents: { busy: 12, size: 16 }, verifying: { busy: 2, size: 2 } };
    // 340 trials in 14 min: 660 more take about 27 min.
    expect(poolsText(c, 340, 1000, etaMinutes(14 * 60_000, 340, 660))).toBe(
      'agents 12/16, verifying 2/2, 340 of 1,000 done, ETA 27 min',
    );
    const requests = { ...c, agents: { busy: 20, size: 24 }, requests: { busy: 16, size: 16 } };
    expect(poolsText(requests, 340, 1000, '')).toBe(
      'agents 20/24, model requests 16/16, verifying 2/2, 340 of 1,000 done',
    );
    expect(etaMinutes(60_000, 0, 10)).toBe('');
    expect(etaMinutes(10_000, 10, 5)).toBe(', ETA <1 min');
    expect(etaMinutes(60 * 60_000, 1, 3)).toBe(', ETA 3 h 0 min');
  });

  it('without a TTY prints the pools after the first trial, then at most every 30 s', () => {
    let t = 0;
    const out: string[] = [];
    const io = { stdout: process.stdout, stderr: { write: (s: string) => out.push(s) } } as never;
    const p = progressPrinter(io, () => t);
    p.plan(3, 3, 'r1');
    p.slots({ agents: { busy: 3, size: 16 }, verifying: { busy: 1, size: 2 } });
    expect(out).toHaveLength(1); // a slot taken prints nothing in a log
    t = 60_000;
    const e = (done: number) =>
      ({ done, total: 3, trial: trial({ task_id: 'x-1' }) }) as ProgressEvent;
    p.progress(e(1));
    expect(out.at(-1)).toBe('agents 3/16, verifying 1/2, 1 of 3 done, ETA 2 min\n');
    t = 70_000;
    p.progress(e(2));
    expect(out.at(-1)).toMatch(/^\[2\/3\]/);
  });
});
