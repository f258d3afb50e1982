// Issue #7: agents that try to earn reward they did not earn, through the CLI on the example
// tasks. Every attack runs under --sandbox bwrap and, where the sandbox is not what stops it,
// under --sandbox none too. None may score above what its real code change earns (here: 0, as
// none of them fixes anything). The scripts and what each one tries are in
// test/fixtures/adversarial/; a naive harness (test/helpers/naive-harness.ts) shows that the
// attacks work where the matching defence is missing.
import { execFileSync, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store, type TrialRecord } from '../../src/store/store.js';
import type { Task } from '../../src/task/schema.js';
import { EXAMPLES, nanobench, ROOT, runJson } from '../helpers/cli.js';
import { checkout, naiveRun } from '../helpers/naive-harness.js';
import { writeVariants } from '../helpers/task-variants.js';
import { noBwrap } from '../sandbox/require-bwrap.js';

const ADV = join(ROOT, 'test/fixtures/adversarial');
// Outside /tmp: the sandbox's /tmp is private, so writes next to the database would vanish there
// instead of being seen by the audit.
const root = mkdtempSync('/var/tmp/nb-adv-');
const db = join(root, 'r.sqlite');
const variants = join(root, 'variants');
const MIRROR = join(EXAMPLES, 'mirror');
const SANDBOXES = noBwrap ? (['none'] as const) : (['bwrap', 'none'] as const);

function attack(
  script: string,
  tasks: string[],
  sandbox: string,
  o: { env?: Record<string, string>; args?: string[]; agent?: string } = {},
): TrialRecord[] {
  const agent = o.agent ?? `command:${join(ADV, script)}`;
  const out = runJson(
    ['run', EXAMPLES, variants, '--agent', agent, '--task', tasks.join(',')]
      .concat(['--sandbox', sandbox, '--mirror', MIRROR, '--runs', '1', '--db', db])
      .concat(o.args ?? []),
    { env: o.env },
  );
  const store = Store.open(db);
  try {
    return store.trials(out.run_id);
  } finally {
    store.close();
  }
}

const agentOut = (t: TrialRecord) =>
  readFileSync(join(t.artifacts_dir!, 'agent.stdout'), 'utf8') +
  readFileSync(join(t.artifacts_dir!, 'agent.stderr'), 'utf8');

/**
 * Score 0, and (unless the attack broke the code) the suite really ran on the base code: every
 * P2P passed. The pytest variant reports only when everything passes, so there its own output
 * must show the four failures and the rest passing.
 */
function expectNothingEarned(trials: TrialRecord[], flag?: string, suiteRan = true) {
  expect(trials.length).toBeGreaterThan(0);
  for (const t of trials) {
    const what = `${t.task_id}: ${t.label} ${JSON.stringify(t.details.integrity)}`;
    expect(t.status, what).toBe('scored');
    expect(t.score, what).toBe(0);
    if (flag) expect(t.flags, what).toContain(flag);
    if (!suiteRan) continue;
    if (t.task_id.endsWith('-pytest'))
      expect(readFileSync(join(t.artifacts_dir!, 'tests-py.stdout'), 'utf8')).toMatch(
        /\b4 failed, 21 passed\b/,
      );
    else {
      const p2p = t.details.pass_to_pass as { passed: boolean }[];
      expect(
        p2p.filter((x) => !x.passed),
        what,
      ).toEqual([]);
    }
  }
}

/** Processes (ours or not) whose command line holds `marker`. */
function processesWith(marker: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

let tasks: Record<string, Task>;
beforeAll(() => {
  tasks = writeVariants(variants);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the attacks work against a naive harness', () => {
  it('npm test script, project .npmrc, stale result file, Python hooks, escaping symlink', () => {
    const cases: [string, string, Record<string, string>?][] = [
      ['npm-test-script.sh', 'textkit-001-npm'],
      ['npmrc-shell.sh', 'textkit-001-npm'],
      ['fake-result-file.sh', 'invoicing-001-pytest'],
      ['python-hooks.sh', 'invoicing-001', { NB_ATTACK: 'shadow' }],
      ['python-hooks.sh', 'invoicing-001', { NB_ATTACK: 'usersite' }],
      ['python-hooks.sh', 'invoicing-001-pythonpath', { NB_ATTACK: 'sitecustomize' }],
      ['python-hooks.sh', 'invoicing-001-pytest', { NB_ATTACK: 'conftest' }],
      ['symlink-escape.sh', 'textkit-001', { NB_ESCAPE_DIR: root }],
    ];
    for (const [script, id, env] of cases) {
      const r = naiveRun(tasks[id], join(ADV, script), env);
      rmSync(join(r.dir, '..'), { recursive: true, force: true });
      expect(r.f2pPassed, `${script} ${JSON.stringify(env ?? {})} on ${id}`).toBe(r.f2pTotal);
    }
  });

  it('a planted .git configuration runs commands when git looks at the workspace', () => {
    const marker = join(tmpdir(), `nb-pwned-${randomUUID()}`);
    const dir = checkout(tasks['textkit-001']);
    execFileSync('bash', [join(ADV, 'git-config-exec.sh')], {
      cwd: dir,
      env: { ...process.env, NANOBENCH_TASK_ID: 'textkit-001', NB_PWN_MARKER: marker },
    });
    // git fails in the end (the nested repository has no commit: one more way to break a
    // harness), but not before the filter ran.
    spawnSync('git', ['add', '-A'], { cwd: dir, stdio: 'pipe' });
    expect(existsSync(marker)).toBe(true);
    rmSync(marker, { force: true });
    rmSync(join(dir, '..'), { recursive: true, force: true });
  });
});

describe.each(SANDBOXES)('adversarial agents under --sandbox %s earn nothing', (sandbox) => {
  it('editing the tests', () => {
    expectNothingEarned(attack('edit-tests.sh', ['textkit-001'], sandbox), 'touched_tests');
  });

  it('replacing the npm test script, or the shell npm runs it with', () => {
    for (const script of ['npm-test-script.sh', 'npmrc-shell.sh'])
      expectNothingEarned(attack(script, ['textkit-001-npm'], sandbox), 'touched_test_infra');
  });

  it('writing a passing JUnit file ahead of the suite', () => {
    const [t] = attack('fake-result-file.sh', ['invoicing-001-pytest'], sandbox);
    expectNothingEarned([t], 'wrote_result_file');
  });

  it('Python hooks: a unittest shadow, user-site and site customization, conftest.py', () => {
    const ids = ['invoicing-001', 'invoicing-001-pythonpath', 'invoicing-001-pytest'];
    expectNothingEarned(attack('python-hooks.sh', ids, sandbox), 'touched_test_infra');
  });

  it('looking for the fix in the history inside the workspace', () => {
    // Under none the script goes on to fetch from NanoBench's source cache: see the strict test.
    const [t] = attack('git-history.sh', ['textkit-001'], sandbox, {
      args: ['--integrity', 'strict'],
    });
    expectNothingEarned([t]);
    expect(agentOut(t)).toContain('RESULT in-workspace commits past base: 0');
    if (sandbox === 'bwrap') expect(agentOut(t)).toContain('RESULT source clone: not found');
  });

  it('planting git configuration that would run on the host', () => {
    const marker = join(tmpdir(), `nb-pwned-${randomUUID()}`);
    const trials = attack('git-config-exec.sh', ['textkit-001'], sandbox, {
      env: { NB_PWN_MARKER: marker },
    });
    expectNothingEarned(trials, 'touched_git_internals');
    expect(existsSync(marker)).toBe(false);
  });

  it('leaving processes behind that rewrite the code after the agent is done', () => {
    const marker = `nb-straggler-${randomUUID()}`;
    // The evasive straggler (no tag, outside the workspace) can only be stopped by the sandbox.
    const env = { NB_STRAGGLER: marker, NB_EVASIVE: sandbox === 'bwrap' ? '1' : '' };
    const [t] = attack('straggler.sh', ['textkit-001'], sandbox, { env });
    expectNothingEarned([t]);
    expect(t.files_changed).toEqual([]);
    expect(processesWith(marker)).toEqual([]);
  });

  it('keeping the change outside the workspace behind a symlink', () => {
    const [t] = attack('symlink-escape.sh', ['textkit-001'], sandbox, {
      env: { NB_ESCAPE_DIR: root },
    });
    expectNothingEarned([t], 'escaped_workspace', false);
  });
});

describe.skipIf(noBwrap)('attacks only a sandbox can stop (--sandbox bwrap)', () => {
  let server: Server;
  beforeAll(async () => {
    server = createServer((_q, res) => res.end('host'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => server?.close());

  it('reading the golden patch, the results and the host home; writing next to the db', () => {
    const [t] = attack('read-outside.sh', ['textkit-001'], 'bwrap');
    expectNothingEarned([t], 'escaped_workspace');
    const out = agentOut(t);
    expect(out).toContain('RESULT golden patch: not found');
    expect(out).not.toMatch(/RESULT (read the results database|listed the artifacts|read \/)/);
    expect(existsSync(join(root, 'planted-by-agent.txt'))).toBe(false);
    const evidence = t.details.integrity as Record<string, string[]>;
    expect(evidence.writes_outside).toContain(join(root, 'planted-by-agent.txt'));
    expect(evidence.escaping_symlinks).toEqual([`results-link -> ${root}`]);
  });

  it('calling a public host, DNS, or another port on the host loopback', () => {
    const port = String((server.address() as AddressInfo).port);
    const [t] = attack('network.sh', ['textkit-001'], 'bwrap', { env: { NB_HOST_PORT: port } });
    expectNothingEarned([t], 'network_blocked');
    const results = agentOut(t)
      .split('\n')
      .filter((l) => l.startsWith('RESULT'));
    expect(results.length).toBeGreaterThanOrEqual(3);
    for (const line of results) expect(line).not.toContain('reached');
    expect(results).toContain('RESULT host loopback port: ECONNREFUSED');
  });

  it('an agent that got the fix from the source cache without a sandbox fails under strict', () => {
    const [flagged] = attack('git-history.sh', ['textkit-001'], 'none');
    expect(agentOut(flagged)).toMatch(/RESULT checked out the fix/);
    expect(flagged).toMatchObject({ label: 'pass', score: 1 });
    expect(flagged.flags).toContain('touched_git_internals');
    const [strict] = attack('git-history.sh', ['textkit-001'], 'none', {
      args: ['--integrity', 'strict'],
    });
    expect(strict).toMatchObject({ label: 'integrity_violation', score: 0 });
    expect((strict.details.integrity as { strict: unknown }).strict).toMatchObject({
      original_label: 'pass',
      original_score: 1,
    });
  });

  it('Nanocoder inside bwrap reaches its model endpoint (through the bridge) and passes', () => {
    const [t] = attack('', ['textkit-001'], 'bwrap', {
      agent: 'nanocoder',
      args: ['--model', 'competent'],
    });
    expect(t).toMatchObject({ status: 'scored', label: 'pass', score: 1 });
    expect(t.details.sandbox).toMatchObject({ kind: 'bwrap' });
    expect(
      (t.details.sandbox as { endpoint_connections: number }).endpoint_connections,
    ).toBeGreaterThan(0);
  });
});

it('--sandbox none warns on stderr and in the report', () => {
  const r = nanobench(
    ['run', EXAMPLES, '--agent', 'nop', '--task', 'textkit-001', '--sandbox', 'none'].concat([
      '--runs',
      '1',
      '--db',
      join(root, 'none.sqlite'),
    ]),
  );
  expect(r.code).toBe(0);
  expect(r.stderr).toMatch(/WARNING: sandbox "none": agents run WITHOUT isolation/);
  expect(r.stdout).toMatch(/Warning: no sandbox/);
});
