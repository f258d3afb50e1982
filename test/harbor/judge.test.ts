// Issue #17: the judge sidecar's protocol, over real HTTP on its two ports, with a grader that
// reads the submitted number (and misbehaves on request). The end-to-end run with a scripted
// agent in a container is test/e2e/judge.test.ts.
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { GraderRunner } from '../../src/harbor/judge/grader.js';
import { type Judge, MAX_SUBMISSION_BYTES, startJudge } from '../../src/harbor/judge/server.js';

let judge: Judge | undefined;
afterEach(async () => {
  await judge?.close();
  judge = undefined;
});

/** Rewards the submitted number; "crash" throws, "hang" never answers in time. */
const grader: GraderRunner = async (name, file) => {
  if (file === null) return { reward: 0, reason: 'nothing' };
  const text = readFileSync(file, 'utf8');
  if (text === 'crash') throw new Error('grader exploded');
  const x = Number(text);
  if (!Number.isFinite(x)) return { reward: 0, reason: `not a number: ${text.slice(0, 20)}` };
  return { reward: name === 'final' ? x / 2 : x, reason: `${name} of ${x}` };
};

async function start(
  o: { max?: number; interval?: number; hasFinal?: boolean; clock?: () => number } = {},
) {
  judge = await startJudge({
    config: {
      max_submissions: o.max ?? 3,
      min_interval_sec: o.interval ?? 0,
      grader_timeout_sec: 5,
    },
    grade: grader,
    hasFinal: o.hasFinal ?? false,
    now: o.clock,
  });
  return judge;
}

const submit = async (j: Judge, body: string | Uint8Array) => {
  const r = await fetch(`${j.agentUrl}/submit`, { method: 'POST', body: body as BodyInit });
  return {
    status: r.status,
    body: (await r.json()) as Record<string, unknown>,
    headers: r.headers,
  };
};
const final = async (j: Judge, token: string | null = j.token, url = j.verifierUrl) => {
  const r = await fetch(
    `${url}/final`,
    token ? { headers: { authorization: `Bearer ${token}` } } : {},
  );
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
};

describe('judge: submissions', () => {
  it('grades each submission and says what is left', async () => {
    const j = await start();
    const r = await submit(j, '0.25');
    expect(r).toMatchObject({
      status: 200,
      body: { submission: 1, reward: 0.25, remaining: 2, best: 0.25 },
    });
    expect((await submit(j, '0.75')).body).toMatchObject({
      reward: 0.75,
      remaining: 1,
      best: 0.75,
    });
    const s = await (await fetch(`${j.agentUrl}/status`)).json();
    expect(s).toMatchObject({
      used: 2,
      remaining: 1,
      max_submissions: 3,
      best: 0.75,
      locked: false,
    });
  });

  it('past the budget: 429 with the remaining budget, and no grading', async () => {
    const j = await start({ max: 2 });
    await submit(j, '0.1');
    await submit(j, '0.2');
    const r = await submit(j, '0.9');
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ remaining: 0, used: 2, best: 0.2 });
    expect(String(r.body.error)).toMatch(/budget/);
    expect(j.state().submissions).toHaveLength(2);
  });

  it('sooner than the minimum interval: 429 with when to retry; later it is accepted', async () => {
    let now = 1_000_000;
    const j = await start({ interval: 10, clock: () => now });
    expect((await submit(j, '0.1')).status).toBe(200);
    now += 4_000;
    const r = await submit(j, '0.2');
    expect(r.status).toBe(429);
    expect(r.body).toMatchObject({ retry_after_sec: 6, remaining: 2 });
    expect(r.headers.get('retry-after')).toBe('6');
    now += 6_000;
    expect((await submit(j, '0.2')).status).toBe(200);
  });

  it('a malformed submission scores 0 with a reason; a crashing grader never takes the judge down', async () => {
    const j = await start({ max: 5 });
    expect((await submit(j, 'not a number')).body).toMatchObject({
      reward: 0,
      reason: 'not a number: not a number',
    });
    expect(j.graderFailure()).toBeUndefined();
    // Issue 22 §3: a grader that fails to grade is the grader's failure, not the submission's 0:
    // the agent is told, the judge goes on, and the trial will be an infra error of the grader.
    const crash = await submit(j, 'crash');
    expect(crash.status).toBe(502);
    expect(String(crash.body.error)).toMatch(/the grader failed on this submission \(crashed\)/);
    expect(j.graderFailure()).toMatchObject({
      grader: 'score',
      submission: 2,
      failure: 'crashed',
      reason: expect.stringMatching(/grader could not run: grader exploded/),
    });
    expect((await submit(j, Buffer.from([0xff, 0xfe, 0x00]))).body).toMatchObject({ reward: 0 });
    expect((await submit(j, '0.5')).body).toMatchObject({ reward: 0.5, remaining: 1 });
    // A submission the grader failed on is never the best one.
    expect((await final(j)).body).toMatchObject({ submission: 4, reward: 0.5 });
  });

  it('a submission over the size limit is refused (413) and costs nothing', async () => {
    const j = await start();
    const r = await submit(j, Buffer.alloc(MAX_SUBMISSION_BYTES + 1, 49));
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ remaining: 3 });
  });
});

describe('judge: finalising', () => {
  it('the first /final locks the trial and freezes the best submission; later calls repeat it', async () => {
    const j = await start({ max: 5 });
    await submit(j, '0.4');
    await submit(j, '0.9');
    await submit(j, '0.9'); // a tie: the earliest stays the best
    await submit(j, '0.3');
    const f = await final(j);
    expect(f).toMatchObject({
      status: 200,
      body: { reward: 0.9, submission: 2, session_reward: 0.9, final_grader: false },
    });
    expect((f.body.submissions as unknown[]).length).toBe(4);
    const late = await submit(j, '1');
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ locked: true });
    expect((await final(j)).body).toEqual(f.body);
    expect(j.state()).toMatchObject({ locked: true, submissions: { length: 4 } });
  });

  it('with a final grader, it runs once, on the frozen submission', async () => {
    let finals = 0;
    judge = await startJudge({
      config: { max_submissions: 3, min_interval_sec: 0, grader_timeout_sec: 5 },
      grade: async (name, file) => {
        if (name === 'final') finals++;
        return grader(name, file);
      },
      hasFinal: true,
    });
    await submit(judge, '0.8');
    await submit(judge, '0.6');
    const [a, b] = await Promise.all([final(judge), final(judge)]);
    expect(a.body).toMatchObject({
      reward: 0.4,
      reason: 'final of 0.8',
      submission: 1,
      session_reward: 0.8,
      final_grader: true,
    });
    expect(b.body).toEqual(a.body);
    expect(finals).toBe(1);
  });

  it('nothing submitted: the final reward is 0', async () => {
    const j = await start();
    expect((await final(j)).body).toMatchObject({
      reward: 0,
      submission: null,
      reason: 'nothing was submitted',
    });
  });
});

describe('judge: the two ports', () => {
  it('the agent port refuses /final and /token; the verifier port needs the token', async () => {
    const j = await start();
    await submit(j, '0.5');
    expect((await fetch(`${j.agentUrl}/final`)).status).toBe(403);
    expect((await final(j, j.token, j.agentUrl)).status).toBe(403);
    expect((await fetch(`${j.agentUrl}/token`)).status).toBe(403);
    expect((await final(j, null)).status).toBe(401);
    expect((await final(j, 'guessed')).status).toBe(401);
    // Still open: a refused /final locks nothing.
    expect((await submit(j, '0.6')).status).toBe(200);
    expect((await fetch(`${j.verifierUrl}/submit`, { method: 'POST', body: '1' })).status).toBe(
      404,
    );
  });

  it('/token answers once; the token it gives finalises', async () => {
    const j = await start();
    const t = await (await fetch(`${j.verifierUrl}/token`)).json();
    expect(t).toEqual({ token: j.token });
    expect((await fetch(`${j.verifierUrl}/token`)).status).toBe(403);
    expect((await fetch(`${j.verifierUrl}/final?token=${j.token}`)).status).toBe(200);
  });

  it('the ports are different loopback ports', async () => {
    const j = await start();
    const a = new URL(j.agentUrl);
    const v = new URL(j.verifierUrl);
    expect(a.hostname).toBe('127.0.0.1');
    expect(v.hostname).toBe('127.0.0.1');
    expect(a.port).not.toBe(v.port);
  });
});
