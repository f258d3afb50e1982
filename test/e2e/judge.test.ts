// Issue #17: the judge sidecar end to end, with a scripted agent in the agent's container
// (test/fixtures/judge/probe-agent.py) on examples/harbor/line-fit: malformed input, the
// minimum interval and the budget answered with what remains, /final refused on the agent's port,
// only the agent port reachable from the agent's sandbox, and the verifier's /final locking the
// trial on the best submission, graded once more by the hidden final grader.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../src/store/store.js';
import { EXAMPLES, ROOT, runJson, varTempDir } from '../helpers/cli.js';
import { noPodman, testImage } from '../helpers/containers.js';

const root = varTempDir('nb-judge-');
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe.skipIf(noPodman)('the judge of a hidden-grader task, with a scripted agent', () => {
  it('budget, interval, malformed input, port separation, lock on final', () => {
    const db = join(root, 'r.sqlite');
    const agent = `command:${join(ROOT, 'test/fixtures/judge/probe-agent.py')}`;
    const out = runJson([
      'run',
      join(EXAMPLES, 'harbor'),
      '--task',
      'line-fit',
      '--agent',
      agent,
      '--sandbox',
      'podman',
      '--build-arg',
      `BASE_IMAGE=${testImage()}`,
      '--db',
      db,
    ]);
    const store = Store.open(db);
    const [t] = store.trials(out.run_id);
    store.close();
    const lines = readFileSync(join(t.artifacts_dir!, 'agent.stdout'), 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('RESULT '));
    const step = (name: string) => {
      const l = lines.find((x) => x.startsWith(`RESULT ${name} `));
      expect(l, `${name} in\n${lines.join('\n')}`).toBeDefined();
      const [, , status, ...rest] = l!.split(' ');
      return { status: Number(status), body: JSON.parse(rest.join(' ')) };
    };
    expect(step('status')).toMatchObject({ status: 200, body: { remaining: 5, used: 0 } });
    const malformed = step('malformed');
    expect(malformed).toMatchObject({ status: 200, body: { reward: 0, remaining: 4 } });
    expect(malformed.body.reason).toMatch(/not a JSON object/);
    expect(step('too-soon')).toMatchObject({
      status: 429,
      body: { remaining: 4, retry_after_sec: 1 },
    });
    expect(step('good')).toMatchObject({ status: 200, body: { reward: 1, remaining: 3 } });
    expect(step('final-on-agent-port').status).toBe(403);
    expect(step('token-on-agent-port').status).toBe(403);
    expect(step('spend-2')).toMatchObject({ status: 200, body: { remaining: 0 } });
    expect(step('over-budget')).toMatchObject({ status: 429, body: { remaining: 0 } });
    expect(step('over-budget').body.error).toMatch(/budget/);
    // One port listens in the agent's network namespace: the judge's agent port (the verifier's
    // port, on the host's loopback, is out of reach: the sandbox has no network).
    const listening = lines
      .find((l) => l.startsWith('RESULT listening'))!
      .split(' ')
      .slice(2);
    expect(listening).toHaveLength(1);

    // The verifier finalised: the best submission (the first full reward, #2) frozen and graded
    // once by final.py on the held-out points; the trial locked; the reward is the score.
    const judge = t.details.judge as {
      locked: boolean;
      submissions: { n: number; reward: number }[];
      final: { submission: number; reward: number; final_grader: boolean; reason: string };
    };
    expect(judge.locked).toBe(true);
    expect(judge.submissions.map((s) => s.reward)).toEqual([0, 1, 0.60704, 0.60704, 0.60704]);
    expect(judge.final).toMatchObject({ submission: 2, reward: 1, final_grader: true });
    expect(judge.final.reason).toMatch(/on 40 points/);
    expect(t).toMatchObject({ status: 'scored', score: 1, label: 'pass' });
    expect(readFileSync(join(t.artifacts_dir!, 'tests-harbor.stdout'), 'utf8')).toMatch(
      /final reward 1 .*submission 2/,
    );
  });
});
