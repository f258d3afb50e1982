// Issue #8: the PR comment's body (verdict, rates, taxonomy, marker). Posting it through the CLI
// is test/ci/comment.test.ts.
import { describe, expect, it } from 'vitest';
import { COMMENT_MARKER, commentBody } from '../../src/ci/comment.js';
import type { Label } from '../../src/score/labels.js';
import type { RunRecord, TrialRecord } from '../../src/store/store.js';
import { trial } from '../report/make-trials.js';

const run = (id: string): RunRecord => ({
  id,
  created_at: '2026-01-01T00:00:00Z',
  finished_at: null,
  status: 'finished',
  plan_size: 0,
  config: { agent: 'nanocoder', agent_info: { nanocoder_version: '1.30.0' } },
});

function trials(task: string, labels: (Label | 'ERR')[], model = 'competent'): TrialRecord[] {
  return labels.map((label, i) =>
    trial({
      task_id: task,
      trial_key: `${task}|${model}|${i + 1}`,
      provider: 'scripted',
      model,
      attempt: i + 1,
      status: label === 'ERR' ? 'error' : 'scored',
      label: label === 'ERR' ? null : label,
      score: label === 'pass' ? 1 : label === 'ERR' ? null : 0,
      error: label === 'ERR' ? 'provision: boom | `x`\nsecond line' : null,
    }),
  );
}

const side = (id: string, ts: TrialRecord[]) => ({ run: run(id), trials: ts });
const rep = (label: Label, n: number) => Array.from({ length: n }, () => label);

describe('comment body', () => {
  it('calls a regression when the intervals separate, and names the marker first', () => {
    const body = commentBody(
      side('pr', trials('t1', [...rep('incorrect_fix', 9), 'ERR'])),
      side('base', trials('t1', rep('pass', 10))),
    );
    expect(body.split('\n')[0]).toBe(COMMENT_MARKER);
    // One task cannot be paired: the overlap rule decides it, and the row says so.
    expect(body).toMatch(/Verdict: ❌ \*\*regression\*\* in 1 of 1 group, paired rule/);
    expect(body).toMatch(
      /\| scripted\/competent · hinted \| 1 \| 100% \[72–100%\] \| 0% \[0–30%\] \| .* \| cannot pair: overlap decides \| 10\/10 \(100%\), CI 72%–100% → 0\/9 \(0%\), CI 0%–30%: regression \|/,
    );
    expect(body).toMatch(/so the overlap rule decides the group: scripted\/competent hinted/);
    expect(body).toMatch(/\| incorrect_fix \| 0 \| 9 \|/);
    expect(body).toMatch(/\| pass \| 10 \| 0 \|/);
    expect(body).toMatch(/\| infra error \(not scored\) \| 0 \| 1 \|/);
    expect(body).toMatch(
      /1 trial\(s\) hit an infrastructure error.*provision: boom ' 'x' second line/,
    );
  });

  it('links to nanobench view when its base URL is given, and only then', () => {
    const pr = side('pr', trials('t1', rep('pass', 3)));
    const b = side('b', trials('t1', rep('pass', 3)));
    expect(commentBody(pr, b)).not.toMatch(/nanobench view/);
    expect(commentBody(pr, b, { viewUrl: 'http://ci-box:7357/' })).toContain(
      '[open the run in nanobench view](http://ci-box:7357/runs/pr) · [the comparison](http://ci-box:7357/compare?base=b&candidate=pr)',
    );
    expect(commentBody(pr, undefined, { viewUrl: 'https://x.example/nb' })).toMatch(
      /\[open the run in nanobench view\]\(https:\/\/x\.example\/nb\/runs\/pr\)\n/,
    );
    // Two databases (view --db main.sqlite --db pr.sqlite): each run named DB:RUNID.
    const two = commentBody(
      { ...pr, viewRef: 'pr.sqlite:pr' },
      { ...b, viewRef: 'main.sqlite:b' },
      { viewUrl: 'http://ci-box:7357' },
    );
    expect(two).toContain(
      '(http://ci-box:7357/runs/pr.sqlite%3Apr) · [the comparison](http://ci-box:7357/compare?base=main.sqlite%3Ab&candidate=pr.sqlite%3Apr)',
    );
  });

  it('improvement, noise, and no baseline', () => {
    const up = commentBody(
      side('pr', trials('t1', rep('pass', 10))),
      side('b', trials('t1', rep('incorrect_fix', 10))),
    );
    expect(up).toMatch(/Verdict: ✅ \*\*improvement\*\*/);
    const noise = commentBody(
      side('pr', trials('t1', ['pass', 'pass', 'incorrect_fix', 'incorrect_fix', 'incorrect_fix'])),
      side('b', trials('t1', ['pass', 'pass', 'pass', 'incorrect_fix', 'incorrect_fix'])),
    );
    expect(noise).toMatch(/Verdict: ➖ \*\*no change beyond noise\*\* \(1 group, paired rule\)/);
    const alone = commentBody(side('pr', trials('t1', rep('pass', 3))));
    expect(alone).toMatch(/no baseline given/);
    expect(alone).toMatch(
      /\| scripted\/competent · hinted \| 1 \| 100% \[44–100%\] \| 3\/3 \(100%\) \|/,
    );
    expect(alone).toMatch(/This run places each rate within ±28 pp/);
  });

  it('compares only the tasks both runs ran, and never pools them into an overall row', () => {
    const body = commentBody(
      side('pr', [...trials('t1', rep('pass', 5)), ...trials('only-pr', rep('incorrect_fix', 20))]),
      side('b', trials('t1', rep('pass', 5))),
    );
    expect(body).toMatch(
      /\| scripted\/competent · hinted \| 1 \| 100% .*5\/5 \(100%\), CI .* → 5\/5 \(100%\)/,
    );
    expect(body).not.toMatch(/overall/);
  });
});

// Issue 23: the paired verdict, family-wise control and the power of every verdict.
describe('comment body: paired verdicts', () => {
  /** One single-run trial per task: 1 = pass, 0 = incorrect_fix. */
  const tasks = (outcomes: number[], over: Partial<TrialRecord> = {}) =>
    outcomes.map((o, i) =>
      trial({
        task_id: `t${i + 1}`,
        trial_key: `${over.mode ?? 'hinted'}|${i}`,
        provider: 'scripted',
        model: 'competent',
        label: o ? 'pass' : 'incorrect_fix',
        score: o,
        ...over,
      }),
    );
  // 12 tasks: the base passes 8; the PR loses 6 of them and gains none (sign-flip p = 2/64).
  const base = [1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0];
  const pr = [1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

  it('a regression the paired test sees and the overlap rule does not, with what it could detect', () => {
    const body = commentBody(side('pr', tasks(pr)), side('b', tasks(base)));
    expect(body).toMatch(/Verdict: ❌ \*\*regression\*\* in 1 of 1 group, paired rule/);
    expect(body).toMatch(
      /Regressed in 1 of 1 group: scripted\/competent hinted \(−50 pp \[−83, −17\] pp, p 0\.031 Holm, 12 tasks\)/,
    );
    expect(body).toMatch(
      /This comparison could detect changes of 50 pp or more \(at 80% power\); smaller ones read as noise\./,
    );
    expect(body).toMatch(
      /\| regression \| 8\/12 \(67%\), CI 39%–86% → 2\/12 \(17%\), CI 5%–45%: not distinguishable from noise \|/,
    );
    const byOverlap = commentBody(side('pr', tasks(pr)), side('b', tasks(base)), {
      rule: 'overlap',
    });
    expect(byOverlap).toMatch(
      /Verdict: ➖ \*\*no change beyond noise\*\* \(1 group, overlap rule\)/,
    );
    expect(byOverlap).toMatch(/Verdicts by the overlap rule/);
  });

  it('modes are never pooled: two groups, Holm-corrected over both', () => {
    const body = commentBody(
      side('pr', [...tasks(base), ...tasks(pr, { mode: 'navigation' })]),
      side('b', [...tasks(base), ...tasks(base, { mode: 'navigation' })]),
    );
    // navigation alone p = 0.031, Holm over 2 groups: 0.0625: noise, and the comment says why.
    expect(body).toMatch(/Verdict: ➖ \*\*no change beyond noise\*\* \(2 groups, paired rule\)/);
    expect(body).toMatch(/Holm-corrected over the 2 groups tested/);
    expect(body).toMatch(/by group, at 80% power and α\/2/);
  });
});

describe('comment body: audit, rules and sampling (issue 14)', () => {
  const audit = (agreement: number) => ({
    created_at: '2026-02-01T00:00:00Z',
    run_id: 'audited',
    reviewer: 'ann',
    items: 20,
    agreed: Math.round(agreement * 20),
    agreement,
    details: {},
  });

  it('follows the Level-4 audit like every report, and states its agreement and sample size', () => {
    const labels: Label[] = ['hallucinated_api', 'wrong_abstraction_layer', 'hallucinated_api'];
    const low = commentBody({ ...side('pr', trials('t1', labels)), audit: audit(0.85) });
    expect(low).toMatch(/\| implementation_error \| 3 \|/);
    expect(low).not.toMatch(/\| (hallucinated_api|wrong_abstraction_layer) \|/);
    expect(low).toMatch(
      /^> Level-4 audit \(run audited, ann, 2026-02-01\): 17 of 20 sampled trials agreed with the rules \(85\.0%\), below the 90\.0% required/m,
    );
    const ok = commentBody({ ...side('pr', trials('t1', labels)), audit: audit(0.95) });
    expect(ok).toMatch(/\| hallucinated_api \| 2 \|/);
    expect(ok).toMatch(
      /19 of 20 sampled trials agreed with the rules \(95\.0%\), at least the 90\.0%/,
    );
    // Base and PR from two databases: the stricter audit reads both alike.
    const both = commentBody(
      { ...side('pr', trials('t1', labels)), audit: audit(0.95) },
      { ...side('b', trials('t1', labels)), audit: audit(0.5) },
    );
    expect(both).toMatch(/\| implementation_error \| 3 \| 3 \|/);
  });

  it('says when the two runs were scored by different rules, and which rules each used', () => {
    const withRules = (id: string, rules: number | undefined, ts: TrialRecord[]) => ({
      run: {
        ...run(id),
        config: {
          ...run(id).config,
          nanobench_version: '0.1.0',
          ...(rules !== undefined && { scoring_rules_version: rules }),
        },
      },
      trials: ts,
    });
    const body = commentBody(
      withRules('pr', 2, trials('t1', rep('pass', 3))),
      withRules('b', undefined, trials('t1', rep('pass', 3))),
    );
    expect(body).toMatch(
      /^> ⚠ scored by different rules: base scoring rules not recorded \(1 or older\), candidate 2/m,
    );
    expect(body).toMatch(/run `pr` \(Nanocoder 1\.30\.0, NanoBench 0\.1\.0, scoring rules 2\)/);
  });

  it('leaves undersampled tier 3-4 cells out of the verdict, and names them', () => {
    // 4/4 -> 0/4 separates, but a tier-3 task needs five runs before a regression claim.
    const body = commentBody(
      { ...side('pr', trials('t3', rep('incorrect_fix', 4))), tiers: { t3: 3 } },
      { ...side('b', trials('t3', rep('pass', 4))), tiers: { t3: 3 } },
    );
    expect(body).not.toMatch(/❌/);
    expect(body).toMatch(/left out of every verdict.*t3 scripted\/competent hinted/);
    const counted = commentBody(
      side('pr', trials('t3', rep('incorrect_fix', 4))),
      side('b', trials('t3', rep('pass', 4))),
    );
    expect(counted).toMatch(/Verdict: ❌ \*\*regression\*\*/); // tier unknown: counted
  });
});
