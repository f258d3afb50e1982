// Issue 12: the trial lifecycle as typed phases, tested without git, sandboxes or test runners:
// the services each phase calls are replaced by fakes. Only a trial whose every harness phase
// succeeded is scored; every failure is stored with a stage and a code.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Agent, AgentResult } from '../../src/agent/types.js';
import type { TrialEndpoint } from '../../src/provider/endpoints.js';
import type { TrialSpec } from '../../src/run/plan.js';
import type { ResolvedTask } from '../../src/task/patches.js';
import type { TrialEnv } from '../../src/trial/env.js';
import { RunPaths } from '../../src/trial/paths.js';
import { runTrial } from '../../src/trial/run-trial.js';
import type { TrialServices } from '../../src/trial/services.js';
import { InfraError } from '../../src/util/errors.js';
import type { SuiteRun, Verification } from '../../src/verify/verifier.js';
import type { SessionReport } from '../../src/workspace/sandbox/types.js';
import { fakeWorkspaceServices } from '../helpers/fake-trial-services.js';

const task = {
  task_id: 't1',
  repo: 'fixtures/t1',
  repo_url: 'https://example.invalid/fixtures/t1',
  base_commit: 'a'.repeat(40),
  required_files: ['src/a.js'],
  test_suites: [
    { name: 'js', language: 'javascript', command: 'run-tests', format: 'tap', test_files: [] },
  ],
  fail_to_pass: ['js::fixes it', 'js::also fixed'],
  pass_to_pass: ['js::still works'],
  timeouts: { agent_sec: 10, verifier_sec: 10 },
  problem_statement: 'x',
} as unknown as ResolvedTask;

const spec = (): TrialSpec => ({
  key: 't1|agent|none|none|hinted|1',
  task: { task, file: '/nowhere/t1.json', datasetDir: '/nowhere', digest: 'sha256:x' },
  agent: 'fake',
  provider: 'none',
  model: 'none',
  mode: 'hinted',
  attempt: 1,
});

const report: SessionReport = {
  kind: 'none',
  writesOutside: [],
  containment: 'pid-namespace',
  endpointConnections: 0,
  limits: [],
  readOnly: [],
};

function agentReturning(r: Partial<AgentResult>): Agent {
  return {
    name: 'fake',
    run: async () => ({
      exitCode: 0,
      exitKind: 'success',
      stdout: '',
      stderr: '',
      durationMs: 1,
      timedOut: false,
      ...r,
    }),
  };
}

function suite(over: Partial<SuiteRun> = {}): SuiteRun {
  return {
    name: 'js',
    language: 'javascript',
    command: 'run-tests',
    format: 'tap',
    exitCode: 0,
    timedOut: false,
    durationMs: 5,
    stdout: '',
    stderr: '',
    status: 'reported',
    tests: [],
    fileErrors: [],
    ...over,
  };
}

function verification(passed: Record<string, boolean>, over: Partial<SuiteRun> = {}): Verification {
  const outcomes = new Map(
    Object.entries(passed).map(([id, ok]) => [
      `js::${id}`,
      { id, outcome: ok ? ('passed' as const) : ('failed' as const) },
    ]),
  );
  return { suites: [suite({ tests: [...outcomes.values()], ...over })], outcomes, durationMs: 5 };
}

/** Fakes for every service: a trial that provisions, changes src/a.js and passes everything. */
function services(over: Partial<TrialServices> = {}): Partial<TrialServices> {
  return {
    ...fakeWorkspaceServices(report),
    verify: async () => verification({ 'fixes it': true, 'also fixed': true, 'still works': true }),
    auditTrial: () => ({ flags: [], evidence: {} }),
    symbolAtBase: () => () => false,
    ...over,
  };
}

function env(
  o: {
    agent?: Agent;
    services?: Partial<TrialServices>;
    endpoint?: TrialEndpoint;
    signal?: AbortSignal;
  } = {},
): TrialEnv {
  const root = mkdtempSync(join(tmpdir(), 'nb-lifecycle-'));
  return {
    runId: 'r1',
    paths: new RunPaths(join(root, 'results.sqlite')),
    agent: o.agent ?? agentReturning({}),
    keepWorkspaces: false,
    services: o.services ?? services(),
    endpointFor: o.endpoint ? () => o.endpoint : undefined,
    signal: o.signal,
  };
}

describe('the trial lifecycle', () => {
  it('scores a trial whose every phase succeeded, timing each phase and the teardown', async () => {
    const e = env();
    const rec = await runTrial(spec(), e);
    expect(rec).toMatchObject({ status: 'scored', label: 'pass', score: 1, error_stage: null });
    expect(Object.keys(rec.details.phase_ms as object)).toEqual([
      'provision',
      'agent',
      'guard',
      'diff',
      'harden',
      'verify',
      'score',
      'audit',
      'teardown',
    ]);
    expect(existsSync(e.paths.workspace('r1', spec().key))).toBe(false); // torn down
  });

  it('a provider that refuses connections is an infra error, not zero_signal', async () => {
    const rec = await runTrial(
      spec(),
      env({
        agent: agentReturning({
          exitCode: 1,
          exitKind: 'unreachable',
          stderr: 'Connection failed: Unable to reach the model server',
        }),
      }),
    );
    expect(rec).toMatchObject({
      status: 'error',
      score: null,
      label: null,
      error_stage: 'provider',
      error_code: 'unreachable',
    });
    expect(rec.error).toMatch(/^provider: .*Connection failed/);
  });

  it("the proxy's record of an upstream failure decides, whatever the agent printed", async () => {
    const endpoint: TrialEndpoint = {
      baseUrl: 'http://127.0.0.1:1/v1',
      apiKey: 'k',
      finish: () => ({
        details: {
          upstream_failure: {
            code: 'upstream_timeout',
            message: 'no answer from the provider within 5s',
          },
        },
        flags: [],
      }),
    } as unknown as TrialEndpoint;
    const rec = await runTrial(
      spec(),
      env({ endpoint, agent: agentReturning({ exitCode: 1, exitKind: 'error' }) }),
    );
    expect(rec).toMatchObject({
      status: 'error',
      error_stage: 'provider',
      error_code: 'upstream_timeout',
    });
  });

  // Issue 22 §2: a provider that refuses service is an infra error, never the model's score.
  const endingOn = (last_error: object): TrialEndpoint =>
    ({
      baseUrl: 'http://127.0.0.1:1/v1',
      apiKey: 'k',
      finish: () => ({ details: { last_error }, flags: [] }),
    }) as unknown as TrialEndpoint;

  it.each([
    [401, 'Incorrect API key provided', 'auth'],
    [403, 'This key is not allowed to use the model', 'auth'],
    [402, 'Payment required', 'billing'],
    [429, 'You exceeded your current quota', 'billing'],
    [404, 'The model does not exist', 'model_not_found'],
    [429, 'Rate limit reached', 'rate_limited'],
    [500, 'internal error', 'server_error'],
  ])('the proxy saw HTTP %i (%s): provider/%s, never scored', async (status, message, code) => {
    const rec = await runTrial(
      spec(),
      env({
        endpoint: endingOn({ status, message, source: 'upstream' }),
        agent: agentReturning({ exitCode: 1, exitKind: 'error', stderr: 'Error' }),
      }),
    );
    expect(rec).toMatchObject({ status: 'error', score: null, label: null });
    expect([rec.error_stage, rec.error_code]).toEqual(['provider', code]);
    expect(rec.error).toContain(`HTTP ${status}`);
  });

  it('the agent limit ended Nanocoder while it waited to retry a 500: provider/server_error', async () => {
    const rec = await runTrial(
      spec(),
      env({
        endpoint: endingOn({ status: 500, message: 'overloaded', class: 'server_error' }),
        agent: agentReturning({ exitCode: null, exitKind: 'timeout', timedOut: true }),
      }),
    );
    expect([rec.status, rec.error_stage, rec.error_code]).toEqual([
      'error',
      'provider',
      'server_error',
    ]);
  });

  it("a context-length error stays the model's (rule 1), and a 400 about the request is graded", async () => {
    const ctx = await runTrial(
      spec(),
      env({
        endpoint: endingOn({
          status: 400,
          message: 'maximum context length',
          class: 'context_length',
        }),
        agent: agentReturning({ exitCode: 1, exitKind: 'error' }),
      }),
    );
    expect(ctx).toMatchObject({ status: 'scored', exit_kind: 'context_exceeded' });
    const bad = await runTrial(
      spec(),
      env({
        endpoint: endingOn({ status: 400, message: 'tools[3] is invalid', class: 'other' }),
        agent: agentReturning({ exitCode: 1, exitKind: 'error' }),
      }),
    );
    expect(bad).toMatchObject({ status: 'scored', exit_kind: 'error' });
  });

  it('a suite whose runner could not start is an infra error, even for a correct change', async () => {
    const rec = await runTrial(
      spec(),
      env({
        services: services({
          verify: async () => verification({}, { status: 'not_started', exitCode: 127 }),
        }),
      }),
    );
    expect(rec).toMatchObject({
      status: 'error',
      error_stage: 'verify',
      error_code: 'runner_not_started',
    });
  });

  // Issue 22 §3: a test that never reported is the task's fault when its golden patch leaves it
  // unreported too; otherwise the agent's change made it vanish and it counts as failed.
  function twoSided(trialV: Verification, goldenV: Verification) {
    let golden = false;
    const goldenRuns = { n: 0 };
    const result = {
      exitCode: 0,
      exitKind: 'success' as const,
      stdout: '',
      stderr: '',
      durationMs: 1,
      timedOut: false,
    };
    const goldenAgent: Agent = {
      name: 'oracle',
      run: async () => {
        golden = true;
        goldenRuns.n++;
        return result;
      },
    };
    const agent: Agent = {
      name: 'fake',
      run: async () => {
        golden = false;
        return result;
      },
    };
    const svc = services({ goldenAgent, verify: async () => (golden ? goldenV : trialV) });
    return { agent, services: svc, goldenRuns };
  }
  const MISSING = () => verification({ 'fixes it': true, 'still works': true });
  const ALL = () => verification({ 'fixes it': true, 'also fixed': true, 'still works': true });

  it('a target the golden patch reports but this trial never did counts as failed, flagged', async () => {
    const rec = await runTrial(spec(), env(twoSided(MISSING(), ALL())));
    expect(rec.status).toBe('scored');
    expect(rec.flags).toContain('target_tests_missing');
    expect(rec.details.missing_targets).toEqual({ count: 1, ids: ['js::also fixed'] });
    expect(rec.details.golden_control).toMatchObject({ unreported: { noReport: [], missing: [] } });
    // The evaluator's vector (issue 18): the fix is not met, nothing that passed broke.
    expect(rec.details.criteria).toEqual({ fail_to_pass: false, pass_to_pass: true });
  });

  it('a target the golden patch never reports either: task/targets_missing, never scored', async () => {
    const sides = twoSided(MISSING(), MISSING());
    const e = env(sides);
    const rec = await runTrial(spec(), e);
    expect(rec).toMatchObject({ status: 'error', score: null, label: null });
    expect([rec.error_stage, rec.error_code]).toEqual(['task', 'targets_missing']);
    expect(rec.error).toMatch(
      /^task: task t1: 1 of its 3 fail_to_pass \/ pass_to_pass tests never reported, with the golden patch too \(js::also fixed\)/,
    );
    // The golden control runs once per run and task, whatever the number of trials.
    await runTrial({ ...spec(), key: 't1|agent|none|none|hinted|2', attempt: 2 }, e);
    expect(sides.goldenRuns.n).toBe(1);
  });

  it("the oracle is the golden patch: what it leaves unreported is the task's at once", async () => {
    const oracle: Agent = { ...agentReturning({}), name: 'oracle' };
    const rec = await runTrial(
      spec(),
      env({ agent: oracle, services: services({ verify: async () => MISSING() }) }),
    );
    expect([rec.status, rec.error_stage, rec.error_code]).toEqual([
      'error',
      'task',
      'targets_missing',
    ]);
    expect(rec.details.unreported).toEqual({ noReport: [], missing: ['js::also fixed'] });
  });

  it('a suite that writes no report with the golden patch either: task/no_report', async () => {
    const none = () => verification({}, { status: 'no_report', exitCode: 2, stderr: 'usage: x' });
    const rec = await runTrial(spec(), env(twoSided(none(), none())));
    expect([rec.status, rec.error_stage, rec.error_code]).toEqual(['error', 'task', 'no_report']);
    expect(rec.error).toMatch(
      /suite js produced no report .*, with the golden patch too; the runner's last output: usage: x/,
    );
    // With the golden patch it reports: the agent's change broke the runner, a failure of its own.
    const agents = await runTrial(spec(), env(twoSided(none(), ALL())));
    expect(agents).toMatchObject({ status: 'scored', label: 'incorrect_fix' });
  });

  it('keeps the prompt with the artifacts, and why each failed target failed', async () => {
    const e = env({
      services: services({
        verify: async () => {
          const v = verification({ 'fixes it': false, 'also fixed': true, 'still works': true });
          v.outcomes.get('js::fixes it')!.message = `AssertionError: ${'x'.repeat(3000)}`;
          return v;
        },
      }),
    });
    const rec = await runTrial(spec(), e);
    // The viewer shows what the agent was asked without the dataset (hinted: the files listed).
    expect(readFileSync(join(rec.artifacts_dir!, 'prompt.md'), 'utf8')).toBe(
      'x\n\nKey files to focus on:\n- src/a.js',
    );
    const [failed, passed] = rec.details.fail_to_pass as { message?: string }[];
    expect(failed).toMatchObject({ id: 'js::fixes it', passed: false });
    expect(failed.message).toMatch(/^AssertionError: x+$/);
    expect(failed.message).toHaveLength(2000); // cut: details stay small
    expect(passed).toEqual({ id: 'js::also fixed', passed: true });
  });

  it('a failure inside a phase takes that phase as its stage; a bug is "internal"', async () => {
    const git = await runTrial(
      spec(),
      env({
        services: services({
          workspaceDiff: () => {
            throw new InfraError('git', 'git diff (in /ws): fatal: bad object');
          },
        }),
      }),
    );
    expect(git).toMatchObject({ status: 'error', error_stage: 'diff', error_code: 'git_failed' });
    const bug = await runTrial(
      spec(),
      env({
        services: services({
          auditTrial: () => {
            throw new TypeError('x is undefined');
          },
        }),
      }),
    );
    expect(bug).toMatchObject({
      status: 'error',
      score: null,
      error_stage: 'internal',
      error_code: 'bug',
    });
    expect(bug.error).toContain('audit: x is undefined');
  });

  it('an interrupted trial says so (the executor does not store it)', async () => {
    const abort = new AbortController();
    abort.abort();
    const rec = await runTrial(spec(), env({ signal: abort.signal }));
    expect(rec).toMatchObject({ status: 'error', error_stage: 'interrupted' });
  });
});
