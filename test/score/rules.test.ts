import { describe, expect, it } from 'vitest';
import { CONTEXT_EXPLOSION_FILES } from '../../src/score/labels.js';
import { readText, type ScoreInput, score } from '../../src/score/rules.js';

const t = (id: string, passed: boolean, message?: string) => ({
  id: `${id.split(':')[0]}::${id}`,
  suite: id.split(':')[0],
  passed,
  message,
});

function input(over: Partial<ScoreInput> = {}): ScoreInput {
  return {
    mode: 'hinted',
    requiredFiles: ['src/a.js', 'src/b.js'],
    filesChanged: ['src/a.js'],
    agentExit: 'success',
    failToPass: [t('js:f1', false), t('js:f2', false)],
    passToPass: [t('js:p1', true)],
    suiteLanguages: { js: 'javascript' },
    failureText: '',
    agentAddedLines: [],
    existsAtBase: () => false,
    ...over,
  };
}

describe('rule 1: halted before any edit', () => {
  it('context error with no file changed is context_window_exceeded at level 3', () => {
    const r = score(input({ agentExit: 'context_exceeded', filesChanged: [] }));
    expect(r).toMatchObject({ label: 'context_window_exceeded', score: 0, confidenceLevel: '3' });
  });
  // Scoring rules 4: the bare agent's unusable answer is its own label, in either mode.
  it("the bare agent's unusable answer with nothing changed is unusable_edit", () => {
    for (const mode of ['hinted', 'navigation'] as const)
      expect(score(input({ mode, agentExit: 'unusable_edit', filesChanged: [] }))).toMatchObject({
        label: 'unusable_edit',
        score: 0,
      });
    // Something changed after all (a write failed half-way): graded as any change is.
    expect(score(input({ agentExit: 'unusable_edit' })).label).toBe('incorrect_fix');
  });
  // Scoring rules 3: a provider's refusal is never the model's score (an infra error before
  // the rules run, src/trial/agent.ts), so rule 1 no longer takes rate limits or quotas.
  it('a rate limit or an exhausted quota is not rule 1 any more', () => {
    for (const agentExit of ['rate_limited', 'quota_exceeded'] as const)
      expect(score(input({ agentExit, filesChanged: [] })).label).not.toBe(
        'context_window_exceeded',
      );
  });
  it('a context error after editing is graded on its artifact', () => {
    const r = score(
      input({ agentExit: 'context_exceeded', failToPass: [t('js:f1', true), t('js:f2', false)] }),
    );
    expect(r.label).toBe('partial_fix_only');
  });
});

describe('rule 2: pass first (deliberate deviation)', () => {
  it('all F2P and P2P pass is 1.0 at level 2', () => {
    const r = score(input({ failToPass: [t('js:f1', true), t('js:f2', true)] }));
    expect(r).toMatchObject({ label: 'pass', score: 1, confidenceLevel: '2', flags: [] });
  });
  it('a correct fix outside required_files still passes, flagged', () => {
    const r = score(
      input({ filesChanged: ['lib/other.js'], failToPass: [t('js:f1', true), t('js:f2', true)] }),
    );
    expect(r).toMatchObject({ label: 'pass', score: 1, flags: ['pass_outside_required_files'] });
  });
  it('a broken pass_to_pass test prevents a pass', () => {
    const r = score(
      input({ failToPass: [t('js:f1', true), t('js:f2', true)], passToPass: [t('js:p1', false)] }),
    );
    expect(r.label).toBe('partial_fix_only');
  });
  it('zero target tests is never a pass', () => {
    expect(score(input({ failToPass: [], passToPass: [] })).label).not.toBe('pass');
  });
});

// Scoring rules 3 (issue 22, §3b): the whitepaper's §9.1 rule 2 as it stands. Until rules 2 a
// navigation run that read fewer than ten files was zero_signal; these tests were rewritten then.
describe('rule 3: no required-file overlap', () => {
  const read = (count: number, required: string[] = []) => ({ count, required });
  it('navigation, many files read: insufficient_context_read flagged context_explosion, no credit', () => {
    const r = score(
      input({ mode: 'navigation', filesChanged: ['README.md'], filesRead: read(41) }),
    );
    expect(r).toMatchObject({
      label: 'insufficient_context_read',
      score: 0,
      confidenceLevel: '1',
      flags: ['context_explosion'],
    });
    expect(r.explanation).toMatch(/^read 41 files, none of the required ones, and changed none/);
  });
  it('the flag threshold is inclusive, and a required file read but not changed still counts', () => {
    const r = score(
      input({
        mode: 'navigation',
        filesChanged: ['README.md'],
        filesRead: read(CONTEXT_EXPLOSION_FILES, ['src/a.js']),
      }),
    );
    expect(r).toMatchObject({ label: 'insufficient_context_read', flags: ['context_explosion'] });
    expect(r.explanation).toMatch(/read 10 files, 1 of the 2 required ones/);
  });
  it('navigation, few files read: insufficient_context_read all the same, without the flag', () => {
    const r = score(
      input({
        mode: 'navigation',
        filesChanged: ['README.md'],
        filesRead: read(CONTEXT_EXPLOSION_FILES - 1, ['src/a.js', 'src/b.js']),
      }),
    );
    expect(r).toMatchObject({
      label: 'insufficient_context_read',
      score: 0,
      confidenceLevel: '1',
      flags: [],
    });
    expect(r.explanation).toMatch(/^read 9 files, all 2 required ones, and changed none/);
  });
  it('navigation, nothing read or nothing changed: insufficient_context_read', () => {
    const r = score(input({ mode: 'navigation', filesChanged: [], filesRead: read(0) }));
    expect(r).toMatchObject({ label: 'insufficient_context_read', flags: [] });
    expect(r.explanation).toMatch(/^read 0 files, none of the required ones/);
  });
  it('navigation, an agent that reports no tool calls: an unknown is not a zero', () => {
    const r = score(input({ mode: 'navigation', filesChanged: ['README.md'] }));
    expect(r).toMatchObject({ label: 'insufficient_context_read', flags: [] });
    expect(r.explanation).toMatch(/^files read unknown \(the agent reports no tool calls\)/);
  });
  it('hinted: zero_signal, however much was read', () => {
    expect(score(input({ filesChanged: [], filesRead: read(50) }))).toMatchObject({
      label: 'zero_signal',
      score: 0,
      confidenceLevel: '1',
    });
  });
  it('is checked before partial passes', () => {
    const r = score(
      input({ filesChanged: ['README.md'], failToPass: [t('js:f1', true), t('js:f2', false)] }),
    );
    expect(r.label).toBe('zero_signal');
    const nav = score(
      input({
        mode: 'navigation',
        filesChanged: ['README.md'],
        filesRead: read(12),
        failToPass: [t('js:f1', true), t('js:f2', false)],
      }),
    );
    expect(nav.label).toBe('insufficient_context_read');
  });
  it('files read change nothing once a required file was changed', () => {
    const r = score(input({ mode: 'navigation', filesRead: read(100) }));
    expect(r).toMatchObject({ label: 'incorrect_fix', score: 0.1 });
  });
  it('says how the reads met the required files', () => {
    expect(readText(1, 0, 1)).toBe('read 1 file, none of the required ones');
    expect(readText(3, 1, 1)).toBe('read 3 files, the required one');
    expect(readText(3, 0, 0)).toBe('read 3 files');
  });
});

describe("rule 4: hallucinated_api only for symbols of the agent's own change", () => {
  const failing = [
    t('py:f1', false, "AttributeError: 'Invoice' object has no attribute 'apply_coupon'"),
    t('py:f2', false),
  ];
  it('a symbol the change references, defines nowhere and that is absent at base', () => {
    const r = score(
      input({ failToPass: failing, agentAddedLines: ['    return inv.apply_coupon(code)'] }),
    );
    expect(r).toMatchObject({
      label: 'hallucinated_api',
      confidenceLevel: '4',
      symbol: 'apply_coupon',
      score: 0,
    });
  });
  it('a feature the agent failed to add (tests call the new API, the change does not) is not hallucinated', () => {
    const r = score(input({ failToPass: failing, agentAddedLines: ['    total = 0'] }));
    expect(r.label).toBe('incorrect_fix');
  });
  it('a symbol that exists at base is not hallucinated', () => {
    const r = score(
      input({
        failToPass: failing,
        agentAddedLines: ['inv.apply_coupon(1)'],
        existsAtBase: (s) => s === 'apply_coupon',
      }),
    );
    expect(r.label).toBe('incorrect_fix');
  });
  it('a symbol the change itself defines is not hallucinated', () => {
    const r = score(
      input({
        failToPass: failing,
        agentAddedLines: ['def apply_coupon(self, code):', '  self.apply_coupon(1)'],
      }),
    );
    expect(r.label).toBe('incorrect_fix');
  });
  it('JS: the last identifier of a vite-transformed call', () => {
    const f = [
      t('js:f1', false, '__vite_ssr_import_0__.clampWidth is not a function'),
      t('js:f2', false),
    ];
    const r = score(input({ failToPass: f, agentAddedLines: ['  return clampWidth(s, n);'] }));
    expect(r).toMatchObject({ label: 'hallucinated_api', symbol: 'clampWidth' });
  });
  it('needs no F2P test passing', () => {
    const f = [
      t('js:f1', false, 'ReferenceError: clampWidth is not defined'),
      t('js:f2', true),
      t('js:f3', false),
    ];
    const r = score(input({ failToPass: f, agentAddedLines: ['clampWidth(1)'] }));
    expect(r.label).toBe('incorrect_fix');
  });
});

describe('rule 5: wrong_abstraction_layer', () => {
  it('an arity mismatch with no F2P passing', () => {
    const f = [
      t('py:f1', false, 'TypeError: apply_discount() takes 1 positional argument but 2 were given'),
      t('py:f2', false),
    ];
    expect(score(input({ failToPass: f }))).toMatchObject({
      label: 'wrong_abstraction_layer',
      confidenceLevel: '4',
    });
  });
  it('TS2554 from a type check', () => {
    const f = [
      t('js:f1', false, 'src/a.ts(3,1): error TS2554: Expected 2 arguments, but got 1.'),
      t('js:f2', false),
    ];
    expect(score(input({ failToPass: f })).label).toBe('wrong_abstraction_layer');
  });
  it('a wrong-arity call to a CPython built-in (was incorrect_fix)', () => {
    const f = [
      t('py:f1', false, 'E   TypeError: str.upper() takes no arguments (1 given)'),
      t('py:f2', false),
    ];
    expect(score(input({ failToPass: f })).label).toBe('wrong_abstraction_layer');
  });
});

describe('rule 6: partial_fix_only', () => {
  it('exactly 50% is partial (>=, not >)', () => {
    const r = score(input({ failToPass: [t('js:f1', true), t('js:f2', false)] }));
    expect(r).toMatchObject({ label: 'partial_fix_only', score: 0.5, confidenceLevel: '1+2' });
  });
  it('below 50% is not partial', () => {
    const r = score(
      input({ failToPass: [t('js:f1', true), t('js:f2', false), t('js:f3', false)] }),
    );
    expect(r.label).toBe('incorrect_fix');
  });
});

describe('rule 7: missing_cross_language_change', () => {
  const poly = {
    suiteLanguages: { js: 'javascript', py: 'python' },
    failToPass: [t('py:f1', true), t('js:f2', false), t('js:f3', false)],
    passToPass: [t('py:p1', true)],
  };
  it('navigation mode, one language fully passing: level 1, with pathfinding credit', () => {
    const r = score(input({ ...poly, mode: 'navigation' }));
    expect(r).toMatchObject({
      label: 'missing_cross_language_change',
      confidenceLevel: '1',
      score: 0.1,
    });
  });
  it('hinted mode never gives it', () => {
    expect(score(input({ ...poly, mode: 'hinted' })).label).toBe('incorrect_fix');
  });
});

describe('rule 8 and pathfinding credit', () => {
  it('incorrect_fix scores 0 in hinted mode', () => {
    expect(score(input())).toMatchObject({
      label: 'incorrect_fix',
      score: 0,
      confidenceLevel: '2',
    });
  });
  it('incorrect_fix with overlap earns 0.1 in navigation mode', () => {
    const r = score(input({ mode: 'navigation' }));
    expect(r).toMatchObject({ label: 'incorrect_fix', score: 0.1, flags: ['pathfinding_credit'] });
  });
  it('partial fixes keep 0.5 in navigation mode', () => {
    const r = score(
      input({ mode: 'navigation', failToPass: [t('js:f1', true), t('js:f2', false)] }),
    );
    expect(r.score).toBe(0.5);
  });
});
