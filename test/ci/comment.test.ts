// Issue #8: the PR comment. Its body (verdict, rates, taxonomy, marker), and posting it through a
// stand-in for the GitHub REST API on 127.0.0.1: created once, then updated in place.
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_MARKER, commentBody } from '../../src/ci/comment.js';
import type { RunRecord, TrialRecord } from '../../src/store/store.js';
import { CLI, ROOT, runJson, tempDir } from '../helpers/cli.js';

const run = (id: string): RunRecord => ({
  id,
  created_at: '2026-01-01T00:00:00Z',
  finished_at: null,
  status: 'finished',
  plan_size: 0,
  config: { agent: 'nanocoder', agent_info: { nanocoder_version: '1.30.0' } },
});

function trials(task: string, labels: string[], model = 'competent'): TrialRecord[] {
  return labels.map(
    (label, i) =>
      ({
        task_id: task,
        trial_key: `${task}|${model}|${i + 1}`,
        agent: 'nanocoder',
        provider: 'scripted',
        model,
        mode: 'hinted',
        attempt: i + 1,
        status: label === 'ERR' ? 'error' : 'scored',
        label: label === 'ERR' ? null : label,
        score: label === 'pass' ? 1 : label === 'ERR' ? null : 0,
        error: label === 'ERR' ? 'provision: boom | `x`\nsecond line' : null,
        flags: [],
      }) as TrialRecord,
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
    const labels = ['hallucinated_api', 'wrong_abstraction_layer', 'hallucinated_api'];
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

interface Comment {
  id: number;
  body: string;
  html_url: string;
}

/** Enough of the GitHub REST API for issue comments, with pagination and a token check. */
function standInGitHub(token: string) {
  const comments: Comment[] = Array.from({ length: 101 }, (_, i) => ({
    id: i + 1,
    body: `unrelated comment ${i + 1}`,
    html_url: `https://github.invalid/c/${i + 1}`,
  }));
  const requests: string[] = [];
  const read = async (req: IncomingMessage) => {
    let s = '';
    for await (const chunk of req) s += chunk;
    return s ? JSON.parse(s) : undefined;
  };
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url!, 'http://x');
    requests.push(`${req.method} ${url.pathname}`);
    const send = (code: number, body: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${token}`)
      return send(401, { message: 'Bad credentials' });
    const list = url.pathname.match(/^\/repos\/o\/r\/issues\/7\/comments$/);
    const one = url.pathname.match(/^\/repos\/o\/r\/issues\/comments\/(\d+)$/);
    if (list && req.method === 'GET') {
      const per = Number(url.searchParams.get('per_page') ?? 30);
      const page = Number(url.searchParams.get('page') ?? 1);
      return send(200, comments.slice((page - 1) * per, page * per));
    }
    if (list && req.method === 'POST') {
      const c = {
        id: comments.length + 1,
        body: (await read(req)).body,
        html_url: 'https://github.invalid/new',
      };
      comments.push(c);
      return send(201, c);
    }
    const c = one && comments.find((x) => x.id === Number(one[1]));
    if (c && req.method === 'PATCH') {
      c.body = (await read(req)).body;
      return send(200, c);
    }
    send(404, { message: 'Not Found' });
  });
  return { server, comments, requests };
}

function cli(args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('ci comment against a stand-in GitHub', () => {
  const TOKEN = 'ghs_standin_token_0123456789';
  const gh = standInGitHub(TOKEN);
  let api: string;
  const db = join(tempDir(), 'r.sqlite');
  let base: string;
  let pr: string;

  beforeAll(async () => {
    await new Promise<void>((r) => gh.server.listen(0, '127.0.0.1', r));
    api = `http://127.0.0.1:${(gh.server.address() as { port: number }).port}`;
    const one = ['run', 'examples', '--task', 'textkit-001', '--runs', '5', '--db', db];
    base = runJson([...one, '--agent', 'oracle']).run_id;
    pr = runJson([...one, '--agent', 'nop']).run_id;
  });
  afterAll(() => new Promise<void>((r) => gh.server.close(() => r())));

  const post = (extra: string[], env: Record<string, string> = { GH_TOKEN_FOR_TEST: TOKEN }) =>
    cli(
      [
        'ci',
        'comment',
        '--run',
        pr,
        '--db',
        db,
        '--repo',
        'o/r',
        '--pr',
        '7',
        '--api-url',
        api,
        '--token-env',
        'GH_TOKEN_FOR_TEST',
        ...extra,
      ],
      env,
    );

  it('creates the comment, then updates the same one', async () => {
    const first = await post(['--compare', base]);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ action: 'created', id: 102 });
    const marked = () => gh.comments.filter((c) => c.body.includes(COMMENT_MARKER));
    expect(marked()).toHaveLength(1);
    expect(marked()[0].body).toMatch(/regression/);

    const second = await post([]); // no base this time: the body changes
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ action: 'updated', id: 102 });
    expect(marked()).toHaveLength(1);
    expect(marked()[0].body).toMatch(/no baseline given/);
    expect(gh.comments).toHaveLength(102);
    expect(gh.comments[0].body).toBe('unrelated comment 1');
    // Two pages of comments were read before deciding (the marker was on page 2).
    expect(gh.requests.filter((r) => r.startsWith('GET')).length).toBe(4);
    for (const out of [first, second]) expect(out.stdout + out.stderr).not.toContain(TOKEN);
  });

  it('fails clearly on a rejected token or a missing one, without printing it', async () => {
    const bad = await post([], { GH_TOKEN_FOR_TEST: 'wrong-token-value' });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/HTTP 401 Bad credentials/);
    expect(bad.stdout + bad.stderr).not.toContain('wrong-token-value');
    const none = await post([], { GH_TOKEN_FOR_TEST: '' });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/\$GH_TOKEN_FOR_TEST is empty/);
  });

  it('--dry-run prints the body and posts nothing', async () => {
    const before = gh.requests.length;
    const r = await cli(
      ['ci', 'comment', '--run', pr, '--compare', base, '--db', db, '--dry-run'],
      {},
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.startsWith(COMMENT_MARKER)).toBe(true);
    expect(gh.requests.length).toBe(before);
  });
});
