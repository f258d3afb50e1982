// Issue 22 §2: a provider that refuses service is an infra error, never the model's score. Each
// row of the table end to end: the CLI, the real Nanocoder 1.30 binary, the provider
// proxy and the scripted model server answering 401, 402, 403, 404, 429 on every retry and 500.
// Then the preflight (a refused key or model stops the run within seconds, nothing stored), a
// scripted model without a script for a planned task, and `run --resume --retry-errors`.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { EXAMPLES, nanobenchAwait, type TrialJson, tempDir } from '../helpers/cli.js';

const root = tempDir('nb-refusals-');
const scripts = join(root, 'scripts');
type Trial = TrialJson & {
  error_stage: string | null;
  error_code: string | null;
  timed_out?: boolean;
};

const model = (name: string, body: object) =>
  writeFileSync(join(scripts, `${name}.json`), JSON.stringify({ model: name, ...body }));
const failing = (fail: string, extra: object = {}) => ({
  tasks: { '*': { steps: [{ fail, ...extra }] } },
});

beforeAll(() => {
  mkdirSync(scripts, { recursive: true });
  model('key-refused', failing('auth'));
  model('forbidden', failing('forbidden'));
  model('no-credit', failing('billing'));
  model('over-quota', failing('quota'));
  model('retired', failing('model_not_found'));
  model('rate-limited', failing('rate_limit'));
  model('server-down', failing('server_error'));
  // It changes a file, then the provider stops answering: still the provider's fault.
  model('limited-after-edit', {
    tasks: {
      '*': {
        steps: [
          { tool: 'write_file', args: { path: 'NOTES.md', content: 'started\n' } },
          { fail: 'rate_limit' },
        ],
      },
    },
  });
  // 500 with a retry-after longer than the agent's limit: the limit ends Nanocoder's retries.
  model('server-down-slow', failing('server_error', { retry_after_sec: 50 }));
  model('wrong-key', { refuse: 'auth' });
  model('no-such-model', { refuse: 'model_not_found' });
  model('busy', { refuse: 'rate_limit' });
  model('textkit-002-only', { tasks: { 'textkit-002': { steps: [{ final: 'Done.' }] } } });
});

async function run(models: string, db: string, extra: string[] = []) {
  const r = await nanobenchAwait([
    'run',
    ...(extra.includes('--resume') ? [] : [EXAMPLES, '--task', 'textkit-001', '--mode', 'hinted']),
    ...(models ? ['--agent', 'nanocoder', '--provider', 'scripted', '--model', models] : []),
    ...(extra.includes('--resume') ? [] : ['--scripts', scripts, '--sandbox', 'none']),
    '--db',
    join(root, db),
    '--json',
    ...extra,
  ]);
  const trials: Trial[] = r.stdout.trim() ? JSON.parse(r.stdout).trials : [];
  return { ...r, trials, runId: r.stdout.trim() ? JSON.parse(r.stdout).run_id : undefined };
}

const cause = (t: Trial) => `${t.error_stage}/${t.error_code}`;

describe('a provider that refuses service is an infra error, never a score', () => {
  let table: Awaited<ReturnType<typeof run>>;
  beforeAll(async () => {
    table = await run(
      'key-refused,forbidden,no-credit,over-quota,retired,rate-limited,server-down,limited-after-edit',
      'table.sqlite',
    );
  }, 300_000);

  it('401/403 auth, 402 and a quota billing, 404 model_not_found, 429 rate_limited, 500 server_error', () => {
    const byModel = Object.fromEntries(table.trials.map((t) => [t.model, t]));
    expect(Object.fromEntries(table.trials.map((t) => [t.model, cause(t)]))).toEqual({
      'key-refused': 'provider/auth',
      forbidden: 'provider/auth',
      'no-credit': 'provider/billing',
      'over-quota': 'provider/billing',
      retired: 'provider/model_not_found',
      'rate-limited': 'provider/rate_limited',
      'server-down': 'provider/server_error',
      'limited-after-edit': 'provider/rate_limited',
    });
    for (const t of table.trials)
      expect(t, t.model).toMatchObject({ status: 'error', score: null, label: null });
    expect(byModel['key-refused'].error).toMatch(
      /^provider: the provider refused the key \(HTTP 401\)/,
    );
    expect(byModel.retired.error).toMatch(/HTTP 404/);
    expect(byModel['limited-after-edit'].files_changed).toEqual([]);
  });

  it('a run where every trial is such an error exits 1, saying so', () => {
    expect(table.code).toBe(1);
    expect(table.stderr).toMatch(
      /every trial of the run was an infrastructure error, nothing was scored \(provider\//,
    );
    // The three most common causes, two trials each (in the order the trials ended).
    for (const c of ['provider/auth ×2', 'provider/billing ×2', 'provider/rate_limited ×2'])
      expect(table.stderr).toContain(c);
    // And how to run them again once the provider serves.
    expect(table.stderr).toMatch(
      new RegExp(
        `8 trial\\(s\\) ended on the provider .*: nanobench run --resume ${table.runId} --retry-errors --db `,
      ),
    );
  });

  it('the reports count them beside the rates, by cause', async () => {
    const md = await nanobenchAwait(['report', '--db', join(root, 'table.sqlite')]);
    expect(md.code).toBe(0);
    for (const c of ['auth', 'billing', 'model_not_found', 'rate_limited', 'server_error'])
      expect(md.stdout).toContain(`**provider/${c}**`);
    const html = await nanobenchAwait([
      'report',
      '--db',
      join(root, 'table.sqlite'),
      '--format',
      'html',
    ]);
    expect(html.stdout).toContain('provider/model_not_found');
  });

  it('a 500 whose retries outlast a short agent limit: provider/server_error, not zero_signal', async () => {
    const task = JSON.parse(readFileSync(join(EXAMPLES, 'tasks', 'textkit-001.json'), 'utf8'));
    const dir = join(root, 'short');
    mkdirSync(join(dir, 'tasks'), { recursive: true });
    task.task_id = 'textkit-001-short';
    task.timeouts = { ...task.timeouts, agent_sec: 15 };
    writeFileSync(join(dir, 'tasks', 'textkit-001-short.json'), JSON.stringify(task));
    const r = await nanobenchAwait([
      'run',
      dir,
      '--mirror',
      join(EXAMPLES, 'mirror'),
      ...['--agent', 'nanocoder', '--provider', 'scripted', '--model', 'server-down-slow'],
      ...['--scripts', scripts, '--sandbox', 'none', '--db', join(root, 'short.sqlite'), '--json'],
    ]);
    const [t] = JSON.parse(r.stdout).trials as Trial[];
    expect(t).toMatchObject({ status: 'error', score: null, exit_kind: 'timeout' });
    expect(cause(t)).toBe('provider/server_error');
    expect(r.code).toBe(1);
    expect(r.ms).toBeLessThan(45_000);
  }, 120_000);
});

describe('the preflight', () => {
  it('a refused key stops the run within seconds: one line, provider, model, status and fix; nothing stored', async () => {
    const r = await run('key-refused,wrong-key', 'preflight.sqlite');
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const last = r.stderr.trim().split('\n').at(-1)!;
    expect(last).toMatch(
      /^nanobench: preflight: provider "scripted", model "wrong-key": HTTP 401 \(provider\/auth: the provider refused the key\): Incorrect API key provided \(scripted\); fix: scripted model "wrong-key" refuses every request: its script in .* says "refuse"; nothing was run$/,
    );
    expect(r.ms).toBeLessThan(15_000);
    const report = await nanobenchAwait(['report', '--db', join(root, 'preflight.sqlite')]);
    expect(report.code).toBe(2);
    expect(report.stderr).toMatch(/no run/);
  });

  it('a misspelt model is HTTP 404, named', async () => {
    const r = await run('no-such-model', 'preflight-404.sqlite');
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /preflight: provider "scripted", model "no-such-model": HTTP 404 \(provider\/model_not_found/,
    );
  });

  it('a rate limit does not stop it: one line, then each trial is provider/rate_limited', async () => {
    const r = await run('busy', 'preflight-429.sqlite');
    expect(r.stderr).toMatch(
      /preflight: provider "scripted", model "busy": HTTP 429 \(provider\/rate_limited/,
    );
    expect(r.trials.map(cause)).toEqual(['provider/rate_limited']);
    expect(r.code).toBe(1);
  });
});

describe('planning', () => {
  it('a scripted model with no script for a planned task is refused, naming both', async () => {
    const r = await run('textkit-002-only', 'unscripted.sqlite');
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(
      /^nanobench: scripted model "textkit-002-only" has no script for task "textkit-001": add a behaviour for it \(or a "\*"\) to its script in .*, or leave the task out with --task$/,
    );
  });
});

describe('re-running provider errors later', () => {
  it('run --resume RUN --retry-errors runs again the trials a rate limit ended, and only those', async () => {
    const first = await run('rate-limited,key-refused', 'retry.sqlite');
    expect(first.trials.map(cause).sort()).toEqual(['provider/auth', 'provider/rate_limited']);
    // The rate limit has passed: the same model now answers.
    model('rate-limited', { tasks: { '*': { steps: [{ final: 'Nothing to change.' }] } } });
    const again = await run('', 'retry.sqlite', [
      '--resume',
      first.runId,
      '--retry-errors',
      'provider/rate_limited',
    ]);
    expect(again.stderr).toMatch(
      /running again 1 trial\(s\) stored as infra errors \(provider\/rate_limited ×1\)/,
    );
    const byModel = Object.fromEntries(again.trials.map((t) => [t.model, t]));
    expect(byModel['rate-limited']).toMatchObject({ status: 'scored', label: 'zero_signal' });
    expect(cause(byModel['key-refused'])).toBe('provider/auth');
    expect(again.trials).toHaveLength(2);
    expect(again.code).toBe(0);
  }, 180_000);
});
