// Issue #8: the coordinator against a real Redis, with an in-process BullMQ worker standing in
// for `nanobench worker`: enqueueing twice adds nothing, finished results are collected with
// their artifacts, a job that fails for good becomes an error trial, and stored jobs leave Redis.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQueueExecutor } from '../../src/queue/coordinator.js';
import { QUEUE_NAME, type TrialJobData, type TrialJobResult } from '../../src/queue/protocol.js';
import type { RunConfig } from '../../src/run/config.js';
import { planTrials } from '../../src/run/plan.js';
import type { TrialRecord } from '../../src/store/store.js';
import { RunPaths } from '../../src/trial/paths.js';
import { UserError } from '../../src/util/errors.js';
import { EXAMPLES, tempDir } from '../helpers/cli.js';
import { loadInline } from '../helpers/tasks.js';
import { startTestRedis, type TestRedis } from './redis.js';

let redis: TestRedis;
beforeAll(async () => {
  redis = await startTestRedis(4);
});
afterAll(async () => {
  await redis?.stop();
});

const plan = planTrials(
  loadInline(EXAMPLES),
  'nop',
  [{ provider: 'none', model: 'none' }],
  ['hinted'],
  1,
);
const config = { agent: 'nop' } as unknown as RunConfig;

async function jobCount(): Promise<number> {
  const q = new Queue(QUEUE_NAME, { connection: { url: redis.url } });
  try {
    const c = await q.getJobCounts('wait', 'active', 'completed', 'failed', 'delayed');
    return Object.values(c).reduce((a, b) => a + b, 0);
  } finally {
    await q.close();
  }
}

describe('queue coordinator', () => {
  it('says clearly when Redis is not there', async () => {
    await expect(
      createQueueExecutor({
        url: 'redis://127.0.0.1:1',
        runId: 'x',
        config,
        paths: new RunPaths('/tmp/x.db'),
      }),
    ).rejects.toThrow(UserError);
  });

  it('enqueues idempotently, collects results and failures once, then cleans Redis', async () => {
    const dir = tempDir();
    const paths = new RunPaths(join(dir, 'r.sqlite'));
    const opts = { url: redis.url, runId: 'run-1', config, paths, attempts: 1, sweepMs: 200 };

    // First coordinator: enqueue, then "die" (abort) before any worker exists.
    const first = await createQueueExecutor(opts);
    const abort = new AbortController();
    const firstRun = first.execute(plan, { signal: abort.signal, onResult: () => {} });
    const deadline = Date.now() + 10_000;
    while ((await jobCount()) < plan.length && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    abort.abort();
    await firstRun;
    await first.close?.();
    expect(await jobCount()).toBe(plan.length);

    // Second coordinator for the same run: enqueues the same jobs again, which adds nothing.
    const second = await createQueueExecutor(opts);
    const results: TrialRecord[] = [];
    const failing = plan[0].key;
    const worker = new Worker<TrialJobData, TrialJobResult>(
      QUEUE_NAME,
      async (job) => {
        if (job.data.spec.key === failing) throw new Error('boom');
        const record = {
          run_id: 'elsewhere',
          trial_key: job.data.spec.key,
          task_id: job.data.task.task.task_id,
          status: 'scored',
          artifacts_dir: '/worker/path',
        } as unknown as TrialRecord;
        return {
          record,
          artifacts: { 'agent.stdout': Buffer.from(`ran ${job.data.spec.key}`).toString('base64') },
        };
      },
      { connection: { url: redis.url, maxRetriesPerRequest: null }, concurrency: 2 },
    );
    try {
      await second.execute(plan, {
        signal: new AbortController().signal,
        onResult: (r) => results.push(r),
      });
    } finally {
      await worker.close();
      await second.close?.();
    }

    expect(results.map((r) => r.trial_key).sort()).toEqual(plan.map((s) => s.key).sort());
    const failed = results.find((r) => r.trial_key === failing)!;
    expect(failed).toMatchObject({ status: 'error', error: 'worker: boom', score: null });
    for (const r of results.filter((x) => x.trial_key !== failing)) {
      expect(r.run_id).toBe('run-1');
      expect(r.artifacts_dir).toBe(paths.artifacts('run-1', r.trial_key));
      expect(readFileSync(join(r.artifacts_dir!, 'agent.stdout'), 'utf8')).toBe(
        `ran ${r.trial_key}`,
      );
    }
    expect(await jobCount()).toBe(0); // stored results leave Redis
  });

  it('stops with an error when the store refuses a result, instead of retrying it forever', async () => {
    const paths = new RunPaths(join(tempDir(), 'r.sqlite'));
    const executor = await createQueueExecutor({
      url: redis.url,
      runId: 'run-2',
      config,
      paths,
      sweepMs: 200,
    });
    const worker = new Worker<TrialJobData, TrialJobResult>(
      QUEUE_NAME,
      async (job) => ({ record: { trial_key: job.data.spec.key } as TrialRecord, artifacts: {} }),
      { connection: { url: redis.url, maxRetriesPerRequest: null } },
    );
    try {
      await expect(
        executor.execute(plan.slice(0, 2), {
          signal: new AbortController().signal,
          onResult: () => {
            throw new Error('disk full');
          },
        }),
      ).rejects.toThrow(/storing .*: disk full/);
    } finally {
      await worker.close();
      await executor.close?.();
    }
  });
});
