// The viewer's server over a synthetic store, without a browser or a port (Hono's app.request):
// every page answers, bad ids are 404 pages, nothing writes, stored text is escaped, artifacts
// are only the files a trial's directory lists, compare gives compareRuns' verdicts, and a run in
// progress streams its progress.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareSide } from '../../src/report/compare-input.js';
import { compareRuns } from '../../src/stats/compare.js';
import { Store, type TrialRecord } from '../../src/store/store.js';
import { viewApp } from '../../src/view/server.js';
import { ViewStores } from '../../src/view/stores.js';
import { EXAMPLES, tempDir } from '../helpers/cli.js';
import { run, trial } from '../report/make-trials.js';

const dir = tempDir('nb-view-');
const db = join(dir, 'results.sqlite');
const artifacts = join(dir, 'artifacts', 'base', 'one');
let writer: Store;
let reader: Store;
let app: ReturnType<typeof viewApp>['app'];

const EVIL = '<script>alert(1)</script>';

function add(s: Store, runId: string, n: number, over: Partial<TrialRecord>, from = 0) {
  for (let i = 0; i < n; i++)
    s.insertTrial(
      trial({ run_id: runId, trial_key: `${runId}-${from + i}`, attempt: from + i + 1, ...over }),
    );
}

beforeAll(() => {
  writer = Store.open(db);
  writer.createRun({ ...run({ runs: 5 }, 'base'), plan_size: 6 });
  writer.createRun({ ...run({ runs: 5 }, 'cand'), plan_size: 5 });
  writer.createRun({ ...run({}, 'live'), status: 'running', finished_at: null, plan_size: 3 });
  // base: 5/5 on t1 plus an infra error; candidate: 0/5, with hostile text in its fields
  mkdirSync(artifacts, { recursive: true });
  writeFileSync(
    join(artifacts, 'agent.diff'),
    'diff --git a/src/a.js b/src/a.js\n@@ -1 +1 @@\n-a\n+b\n',
  );
  writeFileSync(join(artifacts, 'agent.stdout'), EVIL);
  writeFileSync(join(artifacts, 'prompt.md'), 'Fix the thing.\n');
  writeFileSync(join(dir, 'secret.txt'), 'not an artifact');
  add(writer, 'base', 1, {
    details: { explanation: 'all tests pass', fail_to_pass: [{ id: 'js::a', passed: true }] },
    artifacts_dir: artifacts,
  });
  add(writer, 'base', 4, {}, 1);
  add(
    writer,
    'base',
    1,
    {
      status: 'error',
      error: 'provision: clone failed',
      error_stage: 'provision',
      error_code: 'git_failed',
    },
    5,
  );
  add(writer, 'cand', 5, {
    label: 'hallucinated_api',
    score: 0,
    flags: ['touched_tests'],
    details: {
      explanation: `tests fail on "${EVIL}"`,
      fail_to_pass: [{ id: 'js::a', passed: false, message: `ReferenceError: ${EVIL}` }],
    },
  });
  // a run older than prompt.md: the task is in its dataset (examples), its trial has no artifacts
  writer.createRun({ ...run({ datasets: [EXAMPLES] }, 'old'), plan_size: 1 });
  add(writer, 'old', 1, { task_id: 'textkit-001', mode: 'navigation' });
  reader = Store.open(db, { readonly: true });
  app = viewApp(reader, { pollMs: 20, allowedHosts: ['localhost'] }).app;
});

afterAll(() => {
  reader?.close();
  writer?.close();
});

const get = async (path: string, init?: RequestInit) => {
  const res = await app.request(`http://localhost${path}`, init);
  return { status: res.status, headers: res.headers, text: await res.text() };
};

describe('the viewer server', () => {
  it('lists every run with its pass rate and interval, newest first', async () => {
    const r = await get('/');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-security-policy')).toMatch(
      /default-src 'none'; script-src 'self'/,
    );
    const rows = [...r.text.matchAll(/<tr data-run="([^"]+)">(.*?)<\/tr>/g)].map((m) => [
      m[1],
      [...m[2].matchAll(/<td class="num">(.*?)<\/td>/g)].map((x) => x[1]),
    ]);
    expect(rows).toEqual([
      ['old', ['1/1', '1/1 (100%)', '21–100%', '0']],
      ['live', ['0/3', '0/0', '—', '0']],
      ['cand', ['5/5', '0/5 (0%)', '0–43%', '0']],
      ['base', ['6/6', '5/5 (100%)', '57–100%', '1']],
    ]);
  });

  it('a bad run, trial or path is a 404 page naming it; the server keeps serving', async () => {
    const cases: [string, RegExp][] = [
      ['/runs/nope', /No run &quot;nope&quot;/],
      ['/runs/base/trials/999', /Run base has no trial &quot;999&quot;/],
      ['/runs/base/trials/abc', /no trial &quot;abc&quot;/],
      ['/runs/base/trials/8', /no trial &quot;8&quot;/], // a trial of another run
      ['/runs/nope/trials/1', /No run &quot;nope&quot;/],
      ['/runs/nope/events', /No run/],
      ['/nowhere', /Nothing at \/nowhere/],
      ['/compare?base=base&candidate=nope', /no run &quot;nope&quot;/],
      ['/runs/base/trials/1/artifacts/secret.txt', /No artifact/],
      ['/runs/base/trials/1/artifacts/..%2F..%2F..%2Fsecret.txt', /No artifact/],
      ['/runs/base/trials/2/artifacts/prompt.md', /No artifact/], // trial 2 has none
    ];
    for (const [path, message] of cases) {
      const r = await get(path);
      expect(r.status, path).toBe(404);
      expect(r.headers.get('content-type'), path).toMatch(/text\/html/);
      expect(r.text, path).toMatch(message);
    }
    expect((await get('/compare?base=base&candidate=base')).status).toBe(400);
    expect((await get('/compare')).status).toBe(400);
    expect((await get('/')).status).toBe(200);
  });

  it('is read-only and answers only to the names it was given', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const r = await get('/', { method });
      expect(r.status, method).toBe(405);
      expect(r.headers.get('allow')).toBe('GET, HEAD');
    }
    const rebound = await app.request('http://evil.example/', {
      headers: { host: 'evil.example' },
    });
    expect(rebound.status).toBe(421);
    expect(reader.trialIndex('base')).toHaveLength(6);
  });

  it('escapes everything it shows from the store', async () => {
    const r = await get('/runs/cand/trials/8');
    expect(r.status).toBe(200);
    expect(r.text).not.toContain('<script>alert');
    expect(r.text).toContain(
      '<summary class="reason">ReferenceError: &lt;script&gt;alert(1)&lt;/script&gt;</summary>',
    );
    expect(r.text).toMatch(/rule 4 of 8: no fail_to_pass test passes/);
  });

  it('serves only listed artifacts, as sandboxed text; a download is an attachment', async () => {
    const view = await get('/runs/base/trials/1/artifacts/agent.stdout');
    expect(view.status).toBe(200);
    expect(view.text).toBe(EVIL);
    expect(view.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(view.headers.get('content-security-policy')).toMatch(/^sandbox/);
    const dl = await get('/runs/base/trials/1/artifacts/agent.diff?download=1');
    expect(dl.headers.get('content-disposition')).toBe('attachment; filename="agent.diff"');
    expect(dl.text).toBe(readFileSync(join(artifacts, 'agent.diff'), 'utf8'));
  });

  it('a trial page: its stored prompt, or the one rebuilt from the dataset, said so', async () => {
    const stored = await get('/runs/base/trials/1');
    expect(stored.text).toContain('<pre id="prompt-text">Fix the thing.\n</pre>');
    expect(stored.text).toMatch(/<a href="\/runs\/base\/trials\/2" rel="next" id="next">/);
    expect(stored.text).not.toContain('rel="prev"');
    const rebuilt = await get('/runs/old/trials/12');
    expect(rebuilt.text).toMatch(/Rebuilt from the task in the dataset on disk/);
    expect(rebuilt.text).toMatch(
      /<pre id="prompt-text">truncate\(\) returns strings longer than maxLength/,
    );
    expect(rebuilt.text).not.toMatch(/Key files to focus on/); // navigation mode
    // neither stored nor in a dataset on disk
    const none = await get('/runs/cand/trials/8');
    expect(none.text).toMatch(/Not stored with this trial, and the task is not in a dataset/);
  });

  it('filters select trials; cells keep the whole cell numbers; prev/next stay in the filter', async () => {
    const all = await get('/runs/base');
    expect(all.text.match(/data-trial-row/g)).toHaveLength(6);
    const errors = await get('/runs/base?label=infra_error');
    expect(errors.text.match(/data-trial-row/g)).toHaveLength(1);
    expect(errors.text).toContain('infra error: provision/git_failed');
    // the one matrix cell still says 5/5 (+1 infra error), as the report does
    expect(errors.text).toContain('<td class="num">5/5 (+1 infra error)</td>');
    const passes = await get('/runs/base/trials/2?label=pass');
    expect(passes.text).toContain('href="/runs/base/trials/3?label=pass" rel="next"');
    expect(passes.text).toContain('href="/runs/base/trials/1?label=pass" rel="prev"');
    expect(passes.text).toContain('trial 2 of 5 (filtered)');
  });

  it('compare: the verdicts of compareRuns (what nanobench compare prints)', async () => {
    const r = await get('/compare?base=base&candidate=cand');
    expect(r.status).toBe(200);
    const c = compareRuns(
      compareSide(reader, reader.getRun('base')!),
      compareSide(reader, reader.getRun('cand')!),
    );
    // One task: too few to pair, so the overlap rule decides (5/5 -> 0/5 separates).
    expect(c.groups.map((g) => [g.verdict, g.verdict_rule])).toEqual([['regression', 'overlap']]);
    const verdicts = [...r.text.matchAll(/<span class="verdict[^"]*">([^<]+)</g)].map((m) => m[1]);
    expect(verdicts).toEqual(c.groups.map((g) => g.verdict));
    expect(r.text).toMatch(
      /Regressed in 1 of 1 group: p\/m hinted \(overlap rule: 5\/5 → 0\/5 trials\)/,
    );
    expect(r.text).toContain('cannot pair');
    // ?rule=overlap decides by the whitepaper's rule, as --rule does; a bad rule is a 400.
    const overlap = await get('/compare?base=base&candidate=cand&rule=overlap');
    expect(overlap.text).toMatch(/Verdicts by the overlap rule/);
    expect((await get('/compare?base=base&candidate=cand&rule=both')).status).toBe(400);
  });

  it('streams the progress of a run in progress, then its end', async () => {
    const res = await app.request('http://localhost/runs/live/events?since=0:0:running');
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader_ = res.body!.getReader();
    const read = async () => new TextDecoder().decode((await reader_.read()).value);
    add(writer, 'live', 1, {});
    expect(await read()).toMatch(/^event: progress\ndata: \{"status":"running","trials":1,/);
    writer.setRunStatus('live', 'finished');
    expect(await read()).toMatch(/^event: end\ndata: \{"status":"finished","trials":1,/);
    expect((await reader_.read()).done).toBe(true);
  });
});

describe('the viewer over two databases (view --db A --db B)', () => {
  const otherDir = tempDir('nb-view-pr-');
  const otherDb = join(otherDir, 'pr.sqlite');
  let two: ReturnType<typeof viewApp>['app'];
  let stores: ViewStores;
  const get2 = async (path: string) => {
    const res = await two.request(`http://localhost${path}`);
    return { status: res.status, text: await res.text() };
  };

  beforeAll(() => {
    const w = Store.open(otherDb);
    w.createRun({ ...run({ runs: 5 }, 'pr'), created_at: '2026-01-02T00:00:00Z', plan_size: 5 });
    add(w, 'pr', 5, { label: 'incorrect_fix', score: 0 });
    w.close();
    stores = ViewStores.open([db, otherDb]);
    two = viewApp(stores, { allowedHosts: ['localhost'] }).app;
  });
  afterAll(() => stores?.close());

  it('lists the runs of both, each with its database; the second one names its runs DB:RUNID', async () => {
    const r = await get2('/');
    const rows = [...r.text.matchAll(/<tr data-run="([^"]+)">.*?<code>([^<]+)<\/code>/g)].map(
      (m) => [m[1], m[2]],
    );
    // pr is the newest (created a day later), so it comes first.
    expect(rows[0]).toEqual(['pr.sqlite:pr', 'pr.sqlite']);
    expect(rows.slice(1).map((x) => x[1])).toEqual([
      'results.sqlite',
      'results.sqlite',
      'results.sqlite',
      'results.sqlite',
    ]);
    expect(r.text).toContain('<th>database</th>');
    expect(r.text).toContain(`${db}, ${otherDb}`);
  });

  it('serves a run of the second database, its links staying in it', async () => {
    const r = await get2('/runs/pr.sqlite:pr');
    expect(r.status).toBe(200);
    expect(r.text).toContain('/runs/pr.sqlite%3Apr/trials/');
    const id = r.text.match(/\/runs\/pr\.sqlite%3Apr\/trials\/(\d+)/)![1];
    expect((await get2(`/runs/pr.sqlite:pr/trials/${id}`)).status).toBe(200);
    // A plain id is found in whichever database holds it; an unknown database is a 404.
    expect((await get2('/runs/pr')).status).toBe(200);
    expect((await get2('/runs/nope.sqlite:pr')).status).toBe(404);
    expect((await get2('/runs/results.sqlite:pr')).status).toBe(404);
  });

  it('compares across the databases (base=DB:RUN), latest included', async () => {
    const r = await get2('/compare?base=results.sqlite:base&candidate=pr.sqlite:latest');
    expect(r.status).toBe(200);
    const reference = compareRuns(
      compareSide(reader, reader.getRun('base')!),
      compareSide(stores.all[1].store, stores.all[1].store.getRun('pr')!),
    );
    const verdicts = [...r.text.matchAll(/<span class="verdict[^"]*">([^<]+)</g)].map((m) => m[1]);
    expect(verdicts).toEqual(reference.groups.map((g) => g.verdict));
    expect(verdicts).toEqual(['regression']);
    expect(r.text).toContain('href="/runs/pr.sqlite%3Apr"');
  });
});
