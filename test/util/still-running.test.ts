import { afterEach, describe, expect, it } from 'vitest';
import { minutesText, reportStillRunning, stillRunning } from '../../src/util/still-running.js';

afterEach(() => reportStillRunning(undefined));

describe('still running', () => {
  it('says what is still running, now and then, until it ends', async () => {
    const lines: string[] = [];
    reportStillRunning((l) => lines.push(l), 20);
    const v = await stillRunning(
      'installing textkit-001',
      () => new Promise((r) => setTimeout(() => r(7), 70)),
    );
    expect(v).toBe(7);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toBe('still installing textkit-001 (0 s)');
    const n = lines.length;
    await new Promise((r) => setTimeout(r, 50));
    expect(lines).toHaveLength(n); // nothing once it ended
  });

  it('prints nothing where no command turned it on', async () => {
    expect(await stillRunning('x', async () => 1)).toBe(1);
  });

  it('writes durations as a person would', () => {
    expect(minutesText(45_000)).toBe('45 s');
    expect(minutesText(125_000)).toBe('2 min');
    expect(minutesText(3_900_000)).toBe('1 h 5 min');
  });
});
