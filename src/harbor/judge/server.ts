// The judge sidecar of a task with a hidden grader: one per trial, two HTTP ports on 127.0.0.1.
//
//   agent port     POST /submit   the body is the submission; graded by judge/score.py; the reply
//                                 says its reward, the best so far and the budget left. Past the
//                                 budget or sooner than min_interval_sec after the last one: 429,
//                                 with what remains. After the trial was finalised: 409.
//                  GET  /status   submissions used and left, the best so far, locked or not
//                  GET  /final    403: finalising is the verifier's, on its own port
//   verifier port  GET  /token    the per-trial token, once (NanoBench also gives it to the
//                                 verifier as JUDGE_TOKEN)
//                  GET  /final    with the token (Authorization: Bearer, or ?token=): the first call
//                                 locks the trial, freezes the best submission (highest session
//                                 reward, the earliest on a tie), runs judge/final.py on it once
//                                 when the task has one, and returns the final grade with the
//                                 submission log; later calls return the same answer
//
// Only the agent port is bridged into the agent's sandbox; the verifier port only into the
// verifier's. The grader runs out of the agent's reach (src/harbor/judge/grader.ts), and a
// malformed submission scores 0 with a reason: nothing an agent sends can crash the judge. A
// grader that fails to grade (crashes, times out, returns no number) is recorded as such, the
// agent is told (502), and the trial becomes an infra error of the grader (graderFailure()).
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JudgeConfig } from '../../task/harbor.js';
import {
  type Grade,
  type GradeResult,
  type GraderFailure,
  type GraderRunner,
  isGraderFailure,
} from './grader.js';

/** Largest submission accepted, in bytes (413 beyond). */
export const MAX_SUBMISSION_BYTES = 10 * 1024 * 1024;

export interface Submission {
  n: number;
  at: string;
  bytes: number;
  /** 0 when the grader failed on it (`failure`); such a submission is never the best. */
  reward: number;
  reason: string;
  failure?: GraderFailure['failure'];
}

export interface FinalGrade {
  reward: number;
  reason: string;
  /** The frozen submission's number (null: nothing was submitted). */
  submission: number | null;
  session_reward: number | null;
  /** Whether judge/final.py graded it (else the final reward is the session reward). */
  final_grader: boolean;
  /** judge/final.py failed to grade it: the reward means nothing. */
  failure?: GraderFailure['failure'];
  submissions: Submission[];
}

/** The first time a grader failed to grade, in this trial. */
export interface JudgeGraderFailure {
  grader: 'score' | 'final';
  submission: number;
  failure: GraderFailure['failure'];
  reason: string;
}

export interface Judge {
  agentUrl: string;
  verifierUrl: string;
  token: string;
  /** The log so far (for the trial's artifacts). */
  state(): { submissions: Submission[]; locked: boolean; final: FinalGrade | null };
  /** The grader's first failure to grade, if any: the trial cannot be scored. */
  graderFailure(): JudgeGraderFailure | undefined;
  close(): Promise<void>;
}

export interface JudgeOptions {
  config: JudgeConfig;
  grade: GraderRunner;
  /** Whether the task has judge/final.py. */
  hasFinal: boolean;
  now?: () => number;
}

const json = (res: ServerResponse, status: number, body: unknown, headers = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(`${JSON.stringify(body)}\n`);
};

function readBody(req: IncomingMessage, max: number): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= max) chunks.push(c);
    });
    req.on('end', () => resolve(size > max ? 'too_large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

const listen = (server: Server) =>
  new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });

export async function startJudge(o: JudgeOptions): Promise<Judge> {
  const now = o.now ?? Date.now;
  const dir = mkdtempSync(join(tmpdir(), 'nb-judge-'));
  const token = randomBytes(24).toString('hex');
  const submissions: Submission[] = [];
  let lastAt: number | undefined;
  let final: FinalGrade | null = null;
  let finalising: Promise<FinalGrade> | undefined;
  let tokenGiven = false;
  // Submissions are graded one at a time: the budget and the interval stay exact.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const p = queue.then(fn, fn);
    queue = p.catch(() => {});
    return p;
  };
  const { max_submissions: max, min_interval_sec: interval } = o.config;
  let failed: JudgeGraderFailure | undefined;
  const best = (): Submission | undefined =>
    submissions.reduce<Submission | undefined>(
      (b, s) => (s.failure ? b : !b || s.reward > b.reward ? s : b),
      undefined,
    );
  /** A grader's verdict, or its failure recorded and turned into a 0 that is never the best. */
  const grade = async (
    grader: 'score' | 'final',
    n: number,
  ): Promise<Grade & { failure?: GraderFailure['failure'] }> => {
    let g: GradeResult;
    try {
      g = await o.grade(grader, fileOf(n));
    } catch (e) {
      g = { failure: 'crashed', reason: `the grader could not run: ${(e as Error).message}` };
    }
    if (!isGraderFailure(g)) return g;
    failed ??= { grader, submission: n, failure: g.failure, reason: g.reason };
    return { reward: 0, reason: g.reason, failure: g.failure };
  };
  const status = () => ({
    used: submissions.length,
    remaining: Math.max(0, max - submissions.length),
    max_submissions: max,
    min_interval_sec: interval,
    best: best()?.reward ?? null,
    locked: final !== null || finalising !== undefined,
  });
  const fileOf = (n: number) => join(dir, `submission-${n}`);

  const submit = (body: Buffer) =>
    serial(async (): Promise<{ status: number; body: unknown; headers?: object }> => {
      if (final || finalising)
        return {
          status: 409,
          body: { error: 'the trial was finalised: no more submissions', ...status() },
        };
      if (submissions.length >= max)
        return {
          status: 429,
          body: { error: `submission budget spent (${max})`, ...status() },
        };
      const t = now();
      if (lastAt !== undefined && t - lastAt < interval * 1000) {
        const wait = Math.ceil((interval * 1000 - (t - lastAt)) / 1000);
        return {
          status: 429,
          body: {
            error: `too soon: at most one submission every ${interval} s`,
            retry_after_sec: wait,
            ...status(),
          },
          headers: { 'retry-after': String(wait) },
        };
      }
      lastAt = t;
      const n = submissions.length + 1;
      writeFileSync(fileOf(n), body);
      const g = await grade('score', n);
      const s: Submission = { n, at: new Date(t).toISOString(), bytes: body.length, ...g };
      submissions.push(s);
      if (g.failure)
        return {
          status: 502,
          body: {
            submission: n,
            error: `the grader failed on this submission (${g.failure}); this trial will not be scored`,
            ...status(),
          },
        };
      return {
        status: 200,
        body: { submission: n, reward: s.reward, reason: s.reason, ...status() },
      };
    });

  const finalise = (): Promise<FinalGrade> => {
    finalising ??= serial(async () => {
      const b = best();
      if (!b)
        final = {
          reward: 0,
          reason: 'nothing was submitted',
          submission: null,
          session_reward: null,
          final_grader: false,
          submissions: [...submissions],
        };
      else {
        let g: Grade & { failure?: GraderFailure['failure'] } = {
          reward: b.reward,
          reason: b.reason,
        };
        if (o.hasFinal) g = await grade('final', b.n);
        final = {
          ...g,
          submission: b.n,
          session_reward: b.reward,
          final_grader: o.hasFinal,
          submissions: [...submissions],
        };
      }
      return final;
    });
    return finalising;
  };

  const safe =
    (fn: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>) =>
    (req: IncomingMessage, res: ServerResponse) => {
      const url = new URL(req.url ?? '/', 'http://judge');
      fn(req, res, url).catch((e) => {
        if (!res.headersSent) json(res, 500, { error: `judge error: ${(e as Error).message}` });
        else res.end();
      });
    };

  const agent = createServer(
    safe(async (req, res, url) => {
      if (url.pathname === '/submit' && req.method === 'POST') {
        const body = await readBody(req, MAX_SUBMISSION_BYTES);
        if (body === 'too_large')
          return json(res, 413, {
            error: `a submission is at most ${MAX_SUBMISSION_BYTES} bytes`,
            ...status(),
          });
        const r = await submit(body);
        return json(res, r.status, r.body, r.headers);
      }
      if (url.pathname === '/status' && req.method === 'GET') return json(res, 200, status());
      if (url.pathname === '/final' || url.pathname === '/token')
        return json(res, 403, { error: "finalising is the verifier's, not on this port" });
      json(res, 404, { error: 'POST /submit, GET /status' });
    }),
  );
  const verifier = createServer(
    safe(async (req, res, url) => {
      if (url.pathname === '/token' && req.method === 'GET') {
        if (tokenGiven) return json(res, 403, { error: 'the token was already given out' });
        tokenGiven = true;
        return json(res, 200, { token });
      }
      if (url.pathname === '/final' && req.method === 'GET') {
        const auth =
          req.headers.authorization?.replace(/^Bearer\s+/i, '') ?? url.searchParams.get('token');
        if (auth !== token) return json(res, 401, { error: 'a valid token is needed' });
        return json(res, 200, await finalise());
      }
      if (url.pathname === '/status' && req.method === 'GET') return json(res, 200, status());
      json(res, 404, { error: 'GET /final (with the token), GET /token, GET /status' });
    }),
  );
  const agentPort = await listen(agent);
  const verifierPort = await listen(verifier);
  return {
    agentUrl: `http://127.0.0.1:${agentPort}`,
    verifierUrl: `http://127.0.0.1:${verifierPort}`,
    token,
    state: () => ({ submissions: [...submissions], locked: status().locked, final }),
    graderFailure: () => failed,
    close: async () => {
      await Promise.all(
        [agent, verifier].map(
          (s) =>
            new Promise<void>((r) => {
              s.closeAllConnections?.();
              s.close(() => r());
            }),
        ),
      );
      if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
    },
  };
}
