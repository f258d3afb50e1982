import { describe, expect, it } from 'vitest';
import { familyVerdicts, holmAdjust } from '../../src/stats/holm.js';

describe('Holm step-down (Holm 1979)', () => {
  // The worked example of the Wikipedia article "Holm-Bonferroni method": four hypotheses,
  // p = 0.01, 0.04, 0.03, 0.005 at alpha 0.05. Sorted: 0.005 <= 0.05/4 (reject H4), 0.01 <=
  // 0.05/3 (reject H1), 0.03 > 0.05/2 (stop): H1 and H4 rejected, H2 and H3 not.
  // Adjusted: 4 x 0.005 = 0.02, 3 x 0.01 = 0.03, 2 x 0.03 = 0.06, max(0.06, 1 x 0.04) = 0.06.
  it('the textbook example', () => {
    const adj = holmAdjust([0.01, 0.04, 0.03, 0.005]);
    expect(adj.map((p) => Number(p.toFixed(10)))).toEqual([0.03, 0.06, 0.06, 0.02]);
    expect(adj.map((p) => p <= 0.05)).toEqual([true, false, false, true]);
  });

  it('caps at 1 and keeps monotone order', () => {
    expect(holmAdjust([0.5, 0.6, 0.01])).toEqual([1, 1, 0.03]);
    expect(holmAdjust([])).toEqual([]);
    expect(holmAdjust([0.04])).toEqual([0.04]);
  });

  it('verdicts carry the direction of each effect', () => {
    const v = familyVerdicts([
      { p_value: 0.005, direction: 'worse' },
      { p_value: 0.01, direction: 'better' },
      { p_value: 0.03, direction: 'worse' },
      { p_value: 0.04, direction: 'worse' },
    ]);
    expect(v.map((x) => x.verdict)).toEqual([
      'regression',
      'improvement',
      'not distinguishable from noise',
      'not distinguishable from noise',
    ]);
  });
});
