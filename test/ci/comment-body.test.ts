// Issue #8: the PR comment's body (verdict, rates, taxonomy, marker). Posting it through the CLI
// is test/ci/comment.test.ts.
import { describe, expect, it } from 'vitest';
import { COMMENT_MARKER, commentBody } from '../../src/ci/comment.js';
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

function trials(task: string, labels: string[], model = 'competent'): TrialRecord[] {
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
const rep = (label: string, n: number) => Array.from({ length: n }, () => label);

describe('comment body', () => {
  it('calls a regression when the intervals separate, and names the marker first', () => {
    const body = commentBody(
      side('pr', trials('t1', [...rep('incorrect_fix', 9), 'ERR'])),
      side('base', trials('t1', rep('pass', 10))),
    );
    expect(body.split('\n')[0]).toBe(COMMENT_MARKER);
    expect(body).toMatch(/Verdict: ❌ \*\*regression\*\*/);
    expect(body).toMatch(
      /\| scripted\/competent · hinted \| 10\/10 \(100%\).*\| 0\/9 \(0%\).*\| regression \|/,
    );
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
    expect(noise).toMatch(/Verdict: ➖ \*\*no change beyond noise\*\*/);
    const alone = commentBody(side('pr', trials('t1', rep('pass', 3))));
    expect(alone).toMatch(/no baseline given/);
    expect(alone).toMatch(/\| scripted\/competent · hinted \| 3\/3 \(100%\)/);
  });

  it('compares only the tasks both runs ran', () => {
    const body = commentBody(
      side('pr', [...trials('t1', rep('pass', 5)), ...trials('only-pr', rep('incorrect_fix', 20))]),
      side('b', trials('t1', rep('pass', 5))),
    );
    expect(body).toMatch(/\*\*overall\*\* \| 5\/5 \(100%\).*\| 5\/5 \(100%\)/);
  });
});
