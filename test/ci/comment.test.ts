import { createServer, type IncomingMessage, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_MARKER } from '../../src/ci/comment.js';
import { nanobenchAwait, runJson, tempDir } from '../helpers/cli.js';

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
    // Error bodies that echo what they were sent, as some servers and proxies do (issue 22).
    if (req.headers.authorization !== `Bearer ${token}`)
      return send(401, { message: `Bad credentials (${req.headers.authorization} was refused)` });
    if (url.pathname === '/repos/o/r/issues/8/comments') {
      res.writeHead(502, { 'content-type': 'text/plain' });
      return res.end(`proxy error; request had authorization: ${req.headers.authorization}`);
    }
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

const cli = nanobenchAwait;

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
    expect(bad.stderr).toContain('Bearer [REDACTED] was refused');
    expect(bad.stderr.trimEnd().split('\n')).toHaveLength(1);
    const none = await post([], { GH_TOKEN_FOR_TEST: '' });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/\$GH_TOKEN_FOR_TEST is empty/);
  });

  it('a non-JSON error body that echoes the token is printed redacted', async () => {
    const r = await post(['--pr', '8']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'nanobench: GET /repos/o/r/issues/8/comments?per_page=100&page=1: HTTP 502 proxy error; request had authorization: Bearer [REDACTED]\n',
    );
    expect(r.stdout + r.stderr).not.toContain(TOKEN);
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
    const linked = await cli(
      [
        'ci',
        'comment',
        '--run',
        pr,
        '--db',
        db,
        '--dry-run',
        '--view-url',
        'http://127.0.0.1:7357',
      ],
      {},
    );
    expect(linked.stdout).toContain(`(http://127.0.0.1:7357/runs/${pr})`);
    const bad = await cli(
      ['ci', 'comment', '--run', pr, '--db', db, '--dry-run', '--view-url', 'ci-box'],
      {},
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('nanobench: --view-url must be an http(s) URL, got "ci-box"\n');
    // --rule as in nanobench compare: one shared task cannot be paired, so either rule reads the
    // intervals (5/5 -> 0/5 separates) and the comment says which rule it was asked for.
    for (const rule of ['paired', 'overlap']) {
      const r = await cli(
        ['ci', 'comment', '--run', pr, '--compare', base, '--db', db, '--dry-run', '--rule', rule],
        {},
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`Verdict: ❌ **regression** in 1 of 1 group, ${rule} rule`);
    }
    const wrong = await cli(
      ['ci', 'comment', '--run', pr, '--compare', base, '--db', db, '--dry-run', '--rule', 'x'],
      {},
    );
    expect([wrong.code, wrong.stderr]).toEqual([
      2,
      'nanobench: --rule must be paired or overlap, got "x"\n',
    ]);
  });
});
