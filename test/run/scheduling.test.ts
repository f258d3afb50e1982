// Issue 27: the local pool through the real runner, trial template and store, with the trial's
// services replaced by fakes (as in trial-lifecycle.test.ts): agents that wait on their model
// overlap while suites take verify slots, and a plan of 10,000 trials starts at once without
// preparing more workspaces than there are trials in flight.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/agent/types.js';
import type { TrialSpec } from '../../src/run/plan.js';
import { executePlan } from '../../src/run/runner.js';
import { Slots } from '../../src/run/slots.js';
import { Store } from '../../src/store/store.js';
import type { ResolvedTask } from '../../src/task/patches.js';
import { RunPaths } from '../../src/trial/paths.js';
import type { TrialServices } from '../../src/trial/services.js';
import type { Verification } from '../../src/verify/verifier.js';
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
  fail_to_pass: ['js::fixes it'],
  pass_to_pass: [],
  timeouts: { agent_sec: 10, verifier_sec: 10 },
  problem_statement: 'x',
} as unknown as ResolvedTask;

const plan = (n: number): TrialSpec[] =>
  Array.from({ length: n }, (_, i) => ({
    key: `t1|fake|scripted|m|hinted|${i + 1}`,
    task: { task, file: '/nowhere/t1.json', datasetDir: '/nowhere', digest: 'sha256:x' },
    agent: 'fake',
    provider: 'scripted',
    model: 'm',
    mode: 'hinted',
    attempt: i + 1,
  }));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Counts what is alive at once: prepared workspaces, agents, suites. */
function counters() {
  const c = {
    prepared: 0,
    alive: 0,
    maxAlive: 0,
    agents: 0,
    maxAgents: 0,
    suites: 0,
    maxSuites: 0,
  };
  return c;
}

function services(c: ReturnType<typeof counters>, suiteMs: number): Partial<TrialServices> {
  const outcomes = new Map([['js::fixes it', { id: 'fixes it', outcome: 'passed' as const }]]);
  const verification: Verification = {
    suites: [
      {
        name: 'js',
        language: 'javascript',
        command: 'run-tests',
        format: 'tap',
        exitCode: 0,
        timedOut: false,
        durationMs: 1,
        stdout: '',
        stderr: '',
        status: 'reported',
        tests: [...outcomes.values()],
        fileErrors: [],
      } as unknown as Verification['suites'][number],
    ],
    outcomes,
    durationMs: 1,
  };
  const fake = fakeWorkspaceServices();
  return {
    ...fake,
    provision: async (...args) => {
      c.prepared++;
      c.maxAlive = Math.max(c.maxAlive, ++c.alive);
      return fake.provision(...args);
    },
    verify: async () => {
      c.maxSuites = Math.max(c.maxSuites, ++c.suites);
      await sleep(suiteMs);
      c.suites--;
      return verification;
    },
    auditTrial: () => {
      c.alive--; // the last stage before the teardown: the workspace is as good as gone
      return { flags: [], evidence: {} };
    },
    symbolAtBase: () => () => false,
  };
}

/** An agent that waits `ms` on its "model", as Nanocoder waits on a provider. */
const waitingAgent = (c: ReturnType<typeof counters>, ms: number): Agent => ({
  name: 'fake',
  run: async () => {
    c.maxAgents = Math.max(c.maxAgents, ++c.agents);
    await sleep(ms);
    c.agents--;
    return succeeded(ms);
  },
});

/** What an agent that ended well after `ms` returns. */
const succeeded = (ms: number) => ({
  exitCode: 0,
  exitKind: 'success' as const,
  stdout: '',
  stderr: '',
  durationMs: ms,
  timedOut: false,
});

/**
 * The plan through the local pool with slots for a model-bound agent: `requests` request slots
 * of the scripted provider, 2 verify slots, every trial in flight at once.
 */
function runModelBound(o: {
  store: Store;
  paths: RunPaths;
  specs: TrialSpec[];
  requests: number;
  agent: Agent;
  endpointFor: (spec: TrialSpec) => { baseUrl: string; apiKey: string };
  services?: Partial<TrialServices>;
}) {
  const slots = new Slots({
    verify: 2,
    requests: new Map([['scripted', o.requests]]),
    agentWaitsOn: 'model',
  });
  return executePlan({
    store: o.store,
    plan: o.specs,
    concurrency: o.specs.length,
    slots,
    env: {
      runId: 'r1',
      paths: o.paths,
      agent: o.agent,
      keepWorkspaces: false,
      endpointFor: o.endpointFor,
      services: o.services ?? services(counters(), 1),
    },
  });
}

function setup(specs: TrialSpec[]) {
  const root = mkdtempSync(join(tmpdir(), 'nb-scheduling-'));
  const paths = new RunPaths(join(root, 'results.sqlite'));
  const store = Store.open(paths.dbPath);
  store.createRun({
    id: 'r1',
    created_at: new Date().toISOString(),
    finished_at: null,
    status: 'running',
    config: {},
    plan_size: specs.length,
  });
  return { paths, store };
}

describe('the local pool with agent and verify slots', () => {
  it('overlaps agents waiting on their model while suites take the verify slots', async () => {
    const c = counters();
    const specs = plan(16);
    const { paths, store } = setup(specs);
    // 8 request slots: 12 agents at once (src/provider/providers-config.ts agentsFor).
    const slots = new Slots({
      verify: 2,
      requests: new Map([['scripted', 8]]),
      agentWaitsOn: 'model',
    });
    const r = await executePlan({
      store,
      plan: specs,
      concurrency: 16,
      slots,
      env: {
        runId: 'r1',
        paths,
        agent: waitingAgent(c, 40),
        keepWorkspaces: false,
        services: services(c, 15),
      },
    });
    const trials = store.trials('r1');
    expect(r).toMatchObject({ interrupted: false, ran: 16 });
    expect(trials.every((t) => t.label === 'pass')).toBe(true);
    expect(c.maxAgents).toBe(12); // the provider's agent slots, all busy at once
    expect(c.maxSuites).toBeLessThanOrEqual(2);
    // Four trials waited for an agent slot, and it is recorded.
    const waited = trials.filter(
      (t) => ((t.details.slot_wait_ms as { agent: number }).agent ?? 0) > 30,
    );
    expect(waited.length).toBeGreaterThanOrEqual(4);
    store.close();
  });

  it('starts as many agents at once as there are start slots, each until its first model request', async () => {
    const c = { starting: 0, maxStarting: 0, agents: 0, maxAgents: 0 };
    const specs = plan(8);
    const { paths, store } = setup(specs);
    // Each trial's endpoint: its first request is the agent's "request", by its key.
    const first = new Map<string, () => void>();
    const endpointFor = (spec: TrialSpec) => {
      let arrived!: () => void;
      const firstRequest = new Promise<void>((r) => (arrived = r));
      first.set(spec.key, arrived);
      return { baseUrl: 'http://127.0.0.1:9/v1', apiKey: spec.key, firstRequest };
    };
    const agent: Agent = {
      name: 'fake',
      run: async (ctx) => {
        c.maxAgents = Math.max(c.maxAgents, ++c.agents);
        c.maxStarting = Math.max(c.maxStarting, ++c.starting);
        await sleep(30); // its own start, on a core
        c.starting--;
        first.get(ctx.endpoint!.apiKey)!(); // its first model request
        await sleep(150); // waiting on the model
        c.agents--;
        return succeeded(180);
      },
    };
    await runModelBound({ store, paths, specs, requests: 8, agent, endpointFor });
    const trials = store.trials('r1');
    expect(trials.every((t) => t.label === 'pass')).toBe(true);
    expect(c.maxStarting).toBe(2); // the start slots (as many as verify slots)
    expect(c.maxAgents).toBe(8); // agents past their start overlap freely
    // Six trials waited for a start slot, and it is recorded.
    const waited = trials.filter((t) => (t.details.slot_wait_ms as { start?: number }).start! > 15);
    expect(waited.length).toBeGreaterThanOrEqual(4);
    store.close();
  });

  it("starts agents in the run's order even when the first trials take longest to prepare", async () => {
    const specs = plan(6);
    const { paths, store } = setup(specs);
    const started: number[] = [];
    const endpointFor = (spec: TrialSpec) => ({
      baseUrl: 'http://127.0.0.1:9/v1',
      apiKey: String(spec.attempt),
    });
    const agent: Agent = {
      name: 'fake',
      run: async (ctx) => {
        started.push(Number(ctx.endpoint!.apiKey));
        await sleep(40);
        return succeeded(40);
      },
    };
    const base = services(counters(), 1);
    let provisioned = 0;
    // 2 request slots: 3 agents at once; 6 trials in flight. The first three dispatched (ranks
    // 0-2) prepare their workspaces slowest, as a task's larger environment would.
    await runModelBound({
      store,
      paths,
      specs,
      requests: 2,
      agent,
      endpointFor,
      services: {
        ...base,
        provision: async (...args) => {
          if (provisioned++ < 3) await sleep(60);
          return base.provision!(...args);
        },
      },
    });
    expect(store.trials('r1').every((t) => t.label === 'pass')).toBe(true);
    // Without a place kept for them, attempts 4-6 (ready 60 ms sooner) took the three agent slots.
    expect(started.slice(0, 3).sort()).toEqual([1, 2, 3]);
    store.close();
  });

  it('starts a plan of 10,000 trials in well under a second, preparing only those in flight', async () => {
    const c = counters();
    const specs = plan(10_000);
    const { paths, store } = setup(specs);
    const slots = new Slots({
      verify: 2,
      requests: new Map([['scripted', 16]]),
      agentWaitsOn: 'model',
    });
    const stop = new AbortController();
    const started = Date.now();
    let firstStart = 0;
    let stored = 0;
    await executePlan({
      store,
      plan: specs,
      concurrency: 20,
      slots,
      signal: stop.signal,
      onStart: () => {
        firstStart ||= Date.now() - started;
      },
      onProgress: () => {
        if (++stored === 40) stop.abort();
      },
      env: {
        runId: 'r1',
        paths,
        agent: waitingAgent(c, 5),
        keepWorkspaces: false,
        services: services(c, 1),
      },
    });
    expect(firstStart).toBeLessThan(1000);
    expect(stored).toBeGreaterThanOrEqual(40);
    expect(c.maxAlive).toBeLessThanOrEqual(20); // never more prepared at once than in flight
    expect(c.prepared).toBeLessThanOrEqual(stored + 20); // the other 9,940 never touched
    store.close();
  });
});
