// What the trial page says about a failed test at a glance: the line that names the error.
import { describe, expect, it } from 'vitest';
import { headline } from '../../src/view/pages/trial.js';

describe('the one-line reason of a failed test', () => {
  it("is the exception line: a Python traceback's last, a Node stack's first", () => {
    const python = [
      'ERROR: test_split (tests.test_schedule.PaymentScheduleTest.test_split)',
      'Traceback (most recent call last):',
      '  File "tests/test_schedule.py", line 30, in test_split',
      '    schedule = invoice.payment_schedule(7)',
      "AttributeError: 'Invoice' object has no attribute 'amount_outstanding'",
    ].join('\n');
    expect(headline(python)).toBe(
      "AttributeError: 'Invoice' object has no attribute 'amount_outstanding'",
    );
    expect(headline('ReferenceError: x is not defined\n    at f (src/a.js:1:2)')).toBe(
      'ReferenceError: x is not defined',
    );
    // node --test's YAML diagnostics
    expect(headline("duration_ms: 0.1\nerror: 'x is not defined'\nname: ReferenceError")).toBe(
      "error: 'x is not defined'",
    );
  });

  it('else the first line, cut at 200 characters', () => {
    expect(headline('\n  expected 3 to equal 4\n  at line 2')).toBe('expected 3 to equal 4');
    expect(headline('x'.repeat(300))).toBe(`${'x'.repeat(200)}…`);
    expect(headline('')).toBe('');
  });
});
