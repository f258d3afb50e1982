// What each derived behaviour must get, per mode, is the table and the rules as
// docs/ARCHITECTURE.md states them; a selftest case matches only when label, score and the
// compared flags all agree.
import { describe, expect, it } from 'vitest';
import { BEHAVIOURS } from '../../src/derived/behaviours.js';
import { expectation } from '../../src/derived/expectations.js';
import { compareTrial, parseBehaviours, renderSelftest } from '../../src/derived/selftest.js';
import type { TrialRecord } from '../../src/store/store.js';

describe('expectations per behaviour and mode', () => {
  const table = Object.fromEntries(
    BEHAVIOURS.map((b) => [b, [expectation(b, 'hinted'), expectation(b, 'navigation')]]),
  );

  it('follow the rules: labels, the 0.1 pathfinding credit, context_explosion past 10 files', () => {
    expect(table).toEqual({
      golden: [
        { label: 'pass', score: 1, flags: [] },
        { label: 'pass', score: 1, flags: [] },
      ],
      nothing: [
        { label: 'zero_signal', score: 0, flags: [] },
        { label: 'insufficient_context_read', score: 0, flags: [] },
      ],
      wanderer: [
        { label: 'zero_signal', score: 0, flags: [] },
        { label: 'insufficient_context_read', score: 0, flags: ['context_explosion'] },
      ],
      hallucinated: [
        { label: 'hallucinated_api', score: 0, flags: [] },
        { label: 'hallucinated_api', score: 0.1, flags: ['pathfinding_credit'] },
      ],
      interface: [
        { label: 'wrong_abstraction_layer', score: 0, flags: [] },
        { label: 'wrong_abstraction_layer', score: 0.1, flags: ['pathfinding_credit'] },
      ],
      overflow: [
        { label: 'context_window_exceeded', score: 0, flags: [] },
        { label: 'context_window_exceeded', score: 0, flags: [] },
      ],
    });
  });
});

const trial = (over: Partial<TrialRecord>): TrialRecord =>
  ({
    status: 'scored',
    label: 'hallucinated_api',
    score: 0.1,
    flags: ['pathfinding_credit', 'target_tests_missing'],
    details: { explanation: 'NameError: name x is not defined' },
    error: null,
    error_stage: null,
    error_code: null,
    artifacts_dir: '/a',
    ...over,
  }) as TrialRecord;

describe('a case against its trial', () => {
  const e = expectation('hallucinated', 'navigation');

  it('matches on label, score and the compared flags; other flags do not count', () => {
    expect(compareTrial(e, trial({})).match).toBe(true);
  });

  it('a wrong score, a missing flag, another label or an infra error is a mismatch with its evidence', () => {
    expect(compareTrial(e, trial({ score: 0 })).match).toBe(false);
    expect(compareTrial(e, trial({ flags: [] })).match).toBe(false);
    const other = compareTrial(e, trial({ label: 'incorrect_fix' }));
    expect(other).toMatchObject({ match: false, got: 'incorrect_fix', artifacts_dir: '/a' });
    expect(other.explanation).toContain('NameError');
    const infra = compareTrial(
      e,
      trial({
        status: 'error',
        label: null,
        score: null,
        error: 'agent timed out\nmore',
        error_stage: 'agent',
        error_code: 'timeout',
      }),
    );
    expect(infra).toMatchObject({
      match: false,
      got: 'error: agent/timeout',
      explanation: 'agent timed out',
    });
  });

  it('the table shows MISMATCH with the rule and evidence, and not-built cases with why', () => {
    const text = renderSelftest({
      run_id: 'r1',
      nanocoder_version: '1.30.0',
      tasks: [],
      interrupted: false,
      cases: [
        {
          task: 't',
          behaviour: 'hallucinated',
          mode: 'navigation',
          expected: e.label,
          expected_score: e.score,
          expected_flags: e.flags,
          ...compareTrial(e, trial({ label: 'incorrect_fix', score: 0.1 })),
        },
        {
          task: 't',
          behaviour: 'wanderer',
          mode: 'hinted',
          expected: 'zero_signal',
          expected_score: 0,
          expected_flags: [],
          got: null,
          match: null,
          not_built: 'too few files',
        },
      ],
    });
    expect(text).toMatch(
      /t\s+hallucinated\s+navigation\s+hallucinated_api 0\.10.*incorrect_fix 0\.10.*MISMATCH/,
    );
    expect(text).toContain('rule ');
    expect(text).toContain('not built: too few files');
    expect(text).toContain('2 cases: 0 match, 1 mismatch, 1 not built');
  });
});

describe('--behaviour', () => {
  it('takes names repeated or comma-separated, in the canonical order; refuses an unknown one', () => {
    expect(parseBehaviours(['overflow,golden'])).toEqual(['golden', 'overflow']);
    expect(parseBehaviours(undefined)).toEqual([...BEHAVIOURS]);
    expect(() => parseBehaviours(['golden', 'lazy'])).toThrow(/no behaviour lazy/);
  });
});
