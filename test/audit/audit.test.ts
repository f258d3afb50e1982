// Issue 5: the Level-4 audit policy, reviewer labels and blinding.
import { describe, expect, it } from 'vitest';
import type { AuditKey } from '../../src/audit/export.js';
import { redactor } from '../../src/audit/export.js';
import { applyAudit, effectiveLabel } from '../../src/audit/policy.js';
import { reviewerLabels, scoreAudit } from '../../src/audit/score.js';
import type { Label } from '../../src/score/labels.js';
import type { TrialRecord } from '../../src/store/store.js';

describe('effectiveLabel', () => {
  it('collapses both Level-4 labels below 90% agreement, and nothing else', () => {
    expect(effectiveLabel('hallucinated_api', 0.89)).toBe('implementation_error');
    expect(effectiveLabel('wrong_abstraction_layer', 0.5)).toBe('implementation_error');
    expect(effectiveLabel('partial_fix_only', 0.5)).toBe('partial_fix_only');
    expect(effectiveLabel(null, 0.5)).toBeNull();
    expect(effectiveLabel('hallucinated_api', 0.9)).toBe('hallucinated_api');
    expect(effectiveLabel('hallucinated_api', undefined)).toBe('hallucinated_api');
  });
  it('applyAudit copies; the stored trials keep the engine label', () => {
    const trials: { label: Label; score: number }[] = [{ label: 'hallucinated_api', score: 0 }];
    expect(applyAudit(trials, 0.5)).toEqual([{ label: 'implementation_error', score: 0 }]);
    expect(trials[0].label).toBe('hallucinated_api');
  });
});

const key: AuditKey = {
  format: 'nanobench-audit-key/1',
  run_id: 'r1',
  created_at: '',
  seed: 's',
  items: Object.fromEntries(
    ['a', 'b', 'c', 'd'].map((id, i) => [
      id,
      {
        trial_key: id,
        task_id: `t${i}`,
        agent: 'x',
        provider: 'p',
        model: 'm',
        mode: 'hinted',
        attempt: 1,
        engine_label: i < 2 ? 'hallucinated_api' : 'wrong_abstraction_layer',
      },
    ]),
  ),
};

describe('scoreAudit', () => {
  it('agreement over all items, with the disagreements named', () => {
    const labels = reviewerLabels(
      {
        items: [
          { id: 'a', label: 'hallucinated_api' },
          { id: 'b', label: 'neither' },
          { id: 'c', label: 'wrong_abstraction_layer' },
          { id: 'd', label: 'wrong_abstraction_layer' },
        ],
      },
      'f',
    );
    const r = scoreAudit(key, labels, 'ann');
    expect(r).toMatchObject({ items: 4, agreed: 3, agreement: 0.75, collapsed: true });
    expect(r.disagreements).toEqual([
      { id: 'b', task_id: 't1', engine: 'hallucinated_api', reviewer: 'neither' },
    ]);
    expect(r.confusion).toEqual({
      hallucinated_api: { hallucinated_api: 1, neither: 1 },
      wrong_abstraction_layer: { wrong_abstraction_layer: 2 },
    });
  });
  it('a plain id -> label map works too; unlabelled, unknown or invalid items are refused', () => {
    const all = {
      a: 'hallucinated_api',
      b: 'hallucinated_api',
      c: 'wrong_abstraction_layer',
      d: 'wrong_abstraction_layer',
    };
    expect(scoreAudit(key, reviewerLabels(all, 'f'), 'ann')).toMatchObject({
      agreement: 1,
      collapsed: false,
    });
    expect(() => scoreAudit(key, reviewerLabels({ a: 'hallucinated_api' }, 'f'), 'x')).toThrow(
      /3 of 4 item\(s\) have no label/,
    );
    expect(() => scoreAudit(key, reviewerLabels({ ...all, z: 'neither' }, 'f'), 'x')).toThrow(
      /not in the key/,
    );
    expect(() => reviewerLabels({ a: 'bug' }, 'f')).toThrow(/item a: label must be one of/);
  });
});

describe('redactor', () => {
  it('removes workspace paths, run id, agent, provider and model', () => {
    const t = {
      trial_key: 'k|nanocoder|openrouter|gpt-4o|hinted|1',
      run_id: '20260101T000000-abc123',
      agent: 'nanocoder',
      provider: 'openrouter',
      model: 'gpt-4o',
    } as TrialRecord;
    const redact = redactor(t, '/home/u/.nanobench');
    const out = redact(
      'File "/home/u/.nanobench/workspaces/20260101T000000-abc123/k_nano-1a2b/src/a.py", line 3\nmodel gpt-4o via openrouter (nanocoder) run 20260101T000000-abc123',
    );
    expect(out).toBe(
      'File "<workspace>/src/a.py", line 3\nmodel [redacted] via [redacted] ([redacted]) run [redacted]',
    );
  });
});
