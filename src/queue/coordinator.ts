// The coordinator side of a distributed run: enqueue the pending trials on BullMQ, then collect
// finished ones. Results stay in Redis (completed jobs are kept) until they are in the store, so
// a coordinator that dies loses nothing: `run --resume` enqueues again (same job ids, so nothing
// is added twice) and collects what the workers finished meanwhile.
// Loaded only by `run --queue` (dynamic import): local runs never load bullmq.
import { type Job, Queue, QueueEvents } from 'bullmq';
import type { RunConfig } from '../run/config.js';
import type { TrialSpec } from '../run/plan.js';
import type { ExecutorHooks, TrialExecutor } from '../run/runner.js';
import type { TrialRecord } from '../store/store.js';
import type { RunPaths } from '../trial/paths.js';
import { unpackArtifacts } from './artifacts.js';
import { connectionFor } from './connection.js';
import { probeRedis } from './probe.js';
import {
  failedRecord,
  jobData,
  jobId,
  QUEUE_NAME,
  type TrialJobData,
  type TrialJobResult,
} from './protocol.js';

export interface QueueExecutorOptions {
  url: string;
  runId: string;
  config: RunConfig;
  paths: RunPaths;
  /** Tries per trial when a worker fails it outright (a stalled worker is handled separately). */
  attempts?: number;
  /** Safety net behind the event stream: look at every outstanding job this often. */
  sweepMs?: number;
  log?: (line: string) => void;
}

export async function createQueueExecutor(o: QueueExecutorOptions): Promise<TrialExecutor> {
  await probeRedis(o.url);
  const connection = connectionFor(o.url);
  const queue = new Queue<TrialJobData, TrialJobResult>(QUEUE_NAME, { connection });
  queue.on('error', (e) => o.log?.(`queue: ${e.message}`));
  const attempts = o.attempts ?? 3;
  const sweepMs = o.sweepMs ?? 2_000;

  return {
    async execute(pending: TrialSpec[], hooks: ExecutorHooks): Promise<void> {
      const outstanding = new Map(pending.map((s) => [jobId(o.runId, s.key), s]));
      if (outstanding.size === 0) return;
      const busy = new Set<string>();
      let wake: () => void = () => {};
      // The store refused a result (e.g. a worker from another NanoBench version): stop, loudly,
      // rather than retry it forever.
      let fatal: Error | undefined;
      const store = (rec: TrialRecord) => {
        try {
          hooks.onResult(rec);
        } catch (e) {
          fatal = new Error(`storing ${rec.trial_key}: ${(e as Error).message}`);
          wake();
          throw fatal;
        }
      };

      // Collect one job if it is finished; safe to call any number of times for the same id.
      const collect = async (id: string): Promise<void> => {
        const spec = outstanding.get(id);
        if (!spec || busy.has(id) || hooks.signal.aborted || fatal) return;
        busy.add(id);
        try {
          // State first: a finished job no longer changes, a snapshot taken earlier might.
          const state = await queue.getJobState(id);
          const job =
            state === 'completed' || state === 'failed'
              ? ((await queue.getJob(id)) as Job<TrialJobData, TrialJobResult> | undefined)
              : undefined;
          if (state === 'completed' && job) {
            const { record, artifacts } = job.returnvalue;
            const dir = o.paths.artifacts(o.runId, spec.key);
            unpackArtifacts(dir, artifacts);
            store({ ...record, run_id: o.runId, artifacts_dir: dir });
          } else if (state === 'failed' && job) {
            store(failedRecord(o.runId, spec, job.failedReason || 'job failed'));
          } else if (state === 'unknown') {
            // Removed behind our back (e.g. an operator cleaned Redis): enqueue it again.
            await enqueue([spec]);
            return;
          } else return;
          outstanding.delete(id);
          // Stored: Redis no longer needs to keep it.
          await job?.remove().catch(() => {});
          if (outstanding.size === 0) wake();
        } catch (e) {
          o.log?.(`queue: collecting ${spec.key}: ${(e as Error).message}`);
        } finally {
          busy.delete(id);
        }
      };
      const enqueue = (specs: TrialSpec[]) =>
        queue.addBulk(
          specs.map((s) => ({
            name: o.runId,
            data: jobData(o.runId, o.config, s),
            opts: {
              jobId: jobId(o.runId, s.key),
              attempts,
              backoff: { type: 'fixed', delay: 1_000 },
              removeOnComplete: false,
              removeOnFail: false,
            },
          })),
        );

      const events = new QueueEvents(QUEUE_NAME, { connection });
      events.on('error', (e) => o.log?.(`queue: events: ${e.message}`));
      events.on('completed', ({ jobId: id }) => void collect(id));
      events.on('failed', ({ jobId: id }) => void collect(id));
      events.on('active', ({ jobId: id }) => {
        const spec = outstanding.get(id);
        if (spec) hooks.onStart?.(spec);
      });
      const sweep = setInterval(() => {
        for (const id of outstanding.keys()) void collect(id);
      }, sweepMs);
      const onAbort = () => wake();
      hooks.signal.addEventListener('abort', onAbort);
      try {
        await events.waitUntilReady();
        for (let i = 0; i < pending.length; i += 500) await enqueue(pending.slice(i, i + 500));
        // Jobs finished before we listened (a resumed coordinator) are found here.
        await Promise.all([...outstanding.keys()].map(collect));
        if (outstanding.size > 0 && !hooks.signal.aborted && !fatal)
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        // Let collections already under way finish writing before returning.
        while (busy.size > 0) await new Promise((r) => setTimeout(r, 20));
        if (fatal) throw fatal;
      } finally {
        clearInterval(sweep);
        hooks.signal.removeEventListener('abort', onAbort);
        await events.close();
      }
    },
    async close() {
      await queue.close();
    },
  };
}
