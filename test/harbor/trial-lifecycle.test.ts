// The Harbor task's trial through the one template, on fake services (no engine, no image, no
// judge process): a reward becomes the score, a missing or unreadable one is a verify error,
// the judge is closed at teardown, and a teardown step that throws leaves the trial's record
// standing, with the step's error in it and the rest of the teardown done.
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/agent/types.js';
import type { Judge } from '../../src/harbor/judge/server.js';
import { type HarborServices, harborKind } from '../../src/harbor/trial.js';
import type { HarborTask } from '../../src/task/harbor.js';
import type { TrialEnv } from '../../src/trial/env.js';
import { RunPaths } from '../../src/trial/paths.js';
import type { TrialSpec } from '../../src/trial/spec.js';
import { runTemplate } from '../../src/trial/template.js';
import type { SandboxDriver, SessionReport } from '../../src/workspace/sandbox/types.js';

const root = mkdtempSync(join(tmpdir(), 'nb-harbor-lifecycle-'));
const taskDir = join(root, 'task');
mkdirSync(join(taskDir, 'tests'), { recursive: true });
writeFileSync(join(taskDir, 'tests', 'test.sh'), 'exit 0\n');

const task = {
  kind: 'harbor',
  task_id: 'h1',
  dir: taskDir,
  instruction: 'Write answer.txt',
  config: { verifier: { env: {} }, environment: {} },
  timeouts: { agent_sec: 10, verifier_sec: 10 },
  status: { state: 'active' },
  judgeDir: join(taskDir, 'judge'),
} as unknown as HarborTask;

const spec = (): TrialSpec => ({
  key: 'h1|fake|none|none|hinted|1',
  task: { task, file: join(taskDir, 'task.toml'), datasetDir: root, digest: 'sha256:h' },
  agent: 'fake',
  provider: 'none',
  model: 'none',
  mode: 'hinted',
  attempt: 1,
});

const report: SessionReport = {
  kind: 'podman',
  writesOutside: [],
  containment: 'pid-namespace',
  endpointConnections: 0,
  limits: [],
  readOnly: [],
};

/** The agent writes its answer into the workspace. */
const agent: Agent = {
  name: 'fake',
  run: async (ctx) => {
    writeFileSync(join(ctx.workspace, 'answer.txt'), '42\n');
    return {
      exitCode: 0,
      exitKind: 'success',
      stdout: 'done',
      stderr: '',
      durationMs: 1,
      timedOut: false,
    };
  },
};

interface Fakes {
  /** What the verifier writes into /logs/verifier (file name -> content); nothing when empty. */
  reward: Record<string, string>;
  closeThrows?: boolean;
  closed: number;
}

function fakeJudge(f: Fakes): Judge {
  return {
    agentUrl: 'http://127.0.0.1:1',
    verifierUrl: 'http://127.0.0.1:2',
    token: 't',
    state: () => ({ submissions: [], locked: false, final: null }),
    graderFailure: () => undefined,
    close: async () => {
      f.closed++;
      if (f.closeThrows) throw new Error('judge port already gone');
    },
  };
}

function services(f: Fakes): Partial<HarborServices> {
  let logs = '';
  return {
    prepareEnvironment: async () => ({
      id: 'sha256:img',
      ref: 'nanobench-env:h1',
      built: false,
      buildMs: 0,
      workdir: '/app',
    }),
    workdirSnapshot: async (cacheDir) => {
      const snap = join(cacheDir, 'workdir-h1');
      mkdirSync(snap, { recursive: true });
      writeFileSync(join(snap, 'main.py'), 'print(1)\n');
      return snap;
    },
    startJudge: async () => fakeJudge(f),
    withSession: async (_d, o, fn) => {
      logs = o.mounts?.find((m) => m.target === '/logs/verifier')?.source ?? logs;
      const session = {
        kind: 'podman' as const,
        tag: o.tag,
        wrap: (c: string, a: string[]) => ({ command: c, args: a }),
        close: async () => report,
      };
      return { value: await fn(session), report };
    },
    run: async () => {
      for (const [name, text] of Object.entries(f.reward)) writeFileSync(join(logs, name), text);
      return { exitCode: 0, stdout: 'ok', stderr: '', timedOut: false, durationMs: 3 } as never;
    },
    auditTrial: () => ({ flags: [], evidence: {} }),
  };
}

function trial(f: Fakes) {
  const paths = new RunPaths(join(mkdtempSync(join(root, 'run-')), 'results.sqlite'));
  const env: TrialEnv = {
    runId: 'r1',
    paths,
    agent,
    keepWorkspaces: false,
    sandbox: { kind: 'podman', container: { engine: 'podman' } } as unknown as SandboxDriver,
  };
  return { env, run: () => runTemplate(harborKind(services(f)), spec(), env) };
}

describe('the Harbor trial lifecycle', () => {
  it('scores the reward, times every phase and the teardown, closes the judge', async () => {
    const f: Fakes = { reward: { 'reward.txt': '0.75\n' }, closed: 0 };
    const { env, run } = trial(f);
    const rec = await run();
    expect(rec).toMatchObject({ status: 'scored', score: 0.75, error_stage: null });
    expect(rec.files_changed).toEqual(['answer.txt']);
    expect(rec.details.reward).toMatchObject({ value: 0.75, file: 'reward.txt' });
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
    expect(f.closed).toBe(1);
    expect(rec.details.judge).toEqual({ submissions: [], locked: false, final: null });
    expect(existsSync(env.paths.workspace('r1', spec().key))).toBe(false);
    expect(existsSync(join(rec.artifacts_dir!, 'tests-harbor.stdout'))).toBe(true);
    expect(existsSync(join(rec.artifacts_dir!, 'judge.json'))).toBe(true);
  });

  it('a verifier that writes no reward is verify/no_reward, never a score', async () => {
    const f: Fakes = { reward: {}, closed: 0 };
    const rec = await trial(f).run();
    expect(rec).toMatchObject({
      status: 'error',
      score: null,
      error_stage: 'verify',
      error_code: 'no_reward',
    });
    expect(f.closed).toBe(1);
    expect((rec.details.phase_ms as Record<string, number>).teardown).toBeGreaterThanOrEqual(0);
  });

  it('an unreadable reward is verify/bad_reward', async () => {
    const f: Fakes = { reward: { 'reward.json': '{"reward": "high"}' }, closed: 0 };
    const rec = await trial(f).run();
    expect(rec).toMatchObject({ status: 'error', error_stage: 'verify', error_code: 'bad_reward' });
  });

  it('a teardown step that throws is recorded; the trial keeps its outcome and the rest is done', async () => {
    const f: Fakes = { reward: { 'reward.txt': '1' }, closeThrows: true, closed: 0 };
    const { env, run } = trial(f);
    const rec = await run();
    expect(rec).toMatchObject({ status: 'scored', score: 1 });
    expect(rec.details.teardown_errors).toEqual({ judge: 'judge port already gone' });
    expect(existsSync(env.paths.workspace('r1', spec().key))).toBe(false);
    expect(existsSync(env.paths.scratch('r1', spec().key))).toBe(false);
  });
});
