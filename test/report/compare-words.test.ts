// What compare, the viewer and the PR comment say over groups (issue 23, items 2, 3 and 5).
import { describe, expect, it } from 'vitest';
import { compareMarkdown } from '../../src/report/compare-markdown.js';
import { headline, powerSentence, ruleSentence } from '../../src/report/compare-words.js';
import { compareRuns, type RunSide } from '../../src/stats/compare.js';
import type { TrialRecord } from '../../src/store/store.js';
import { cell } from './make-trials.js';

const side = (trials: TrialRecord[]): RunSide => ({
  id: 'x',
  config: { agent: 'nanocoder' },
  trials,
});
const tasks = (outcomes: number[], over: Partial<TrialRecord> = {}) =>
  outcomes.flatMap((o, i) => cell(o, 1, { task_id: `t${i + 1}`, ...over }));
// 14 single-run tasks: 7 lost (sign-flip p = 2/128 = 0.0156, Holm over 2 groups: 0.031).
const BASE = [1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0];
const LOST = [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0];

describe('compare in words', () => {
  it('a statement over groups, never a pooled row; the rule; what it could detect', () => {
    const c = compareRuns(
      side([
        ...tasks(BASE, { model: 'a' }),
        ...tasks(LOST, { model: 'b' }),
        ...cell(5, 5, { model: 'c' }),
      ]),
      side([
        ...tasks(LOST, { model: 'a' }),
        ...tasks(BASE, { model: 'b' }),
        ...cell(0, 5, { model: 'c' }),
      ]),
    );
    expect(headline(c)).toBe(
      'Regressed in 2 of 3 groups: p/a hinted (−50 pp [−80, −20] pp, p 0.031 Holm, 14 tasks); p/c hinted (overlap rule: 5/5 → 0/5 trials); improved in 1 of 3 groups: p/b hinted (+50 pp [+20, +80] pp, p 0.031 Holm, 14 tasks).',
    );
    expect(ruleSentence(c)).toMatch(
      /Holm-corrected over the 2 groups tested \(family-wise α = 0\.05\)/,
    );
    expect(ruleSentence(c)).toMatch(/the overlap rule decides it: p\/c hinted\.$/);
    expect(powerSentence(c)).toMatch(
      /^This comparison could detect changes of \d+ pp or more \(by group, at 80% power and α\/2\); smaller ones read as noise\. For the group the overlap rule decides, a verdict needs the pass rate to move by more than about 43 pp/,
    );
    const md = compareMarkdown(c);
    expect(md).not.toMatch(/overall/);
    expect(md.match(/^\| p\//gm)).toHaveLength(3);
  });

  it('no change: says so over all groups; the overlap rule states its own gap', () => {
    const same = compareRuns(side(tasks(BASE)), side(tasks(BASE)));
    expect(headline(same)).toBe(
      'No change beyond noise in any of 1 group (the group not distinguishable from noise).',
    );
    const overlap = compareRuns(side(tasks(BASE)), side(tasks(BASE)), null, { rule: 'overlap' });
    expect(powerSentence(overlap)).toMatch(
      /Under the overlap rule, a verdict needs the pass rate to move by more than about \d+ pp/,
    );
  });
});
