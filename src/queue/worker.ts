// The worker side of a distributed run: take trial jobs from the queue and run each exactly as a
// local run would (same runTrial, same agent factory, same endpoints), then return the record and
// its artifacts. Assumes this machine has the dataset, its mirror and the Nanocoder build at the
// paths in the run's configuration (--mirror overrides the mirror).
//
// A worker that dies mid-trial stops renewing its job lock; after lockMs another worker's stalled
// check puts the job back in the queue, so someone else runs it. The lock is renewed from the
// event loop every lockMs/2, so lockMs must exceed the longest synchronous step of a trial.
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { type Job, Worker } from 'bullmq';
import type { RunConfig } from '../run/config.js';
import { type RunWiring, wireRun } from '../run/wiring.js';
import type { TrialRecord } from '../store/store.js';
import { RunPaths } from '../trial/paths.js';
import { runTrial } from '../trial/run-trial.js';
import { actAsWorker } from '../util/execution.js';
import { unmountUnder } from '../workspace/layers.js';
import { packArtifacts } from './artifacts.js';
import { connectionFor } from './connection.js';
import { probeRedis } from './probe.js';
import {
  jobId,
  PROTOCOL_VERSION,
  QUEUE_NAME,
  specOf,
  type TrialJobData,
  type TrialJobResult,
} from './protocol.js';
import { claimWorkerDir, describeSwept } from './worker-dirs.js';

export interface WorkerOptions {
  url: string;
  concurrency: number;
  /** Root for this worker's caches and per-trial directories. */
  workDir: string;
  mirror?: string;
  /** Job lock: a dead worker's trial goes back to the queue this long after it stopped. */
  lockMs: number;
  log: (line: string) => void;
  onDone?: (rec: TrialRecord) => void;
}

export interface WorkerHandle {
  /** Stop taking jobs; `force` also aborts the trials in flight (they go back to the queue). */
  close(force?: boolean): Promise<void>;
  readonly name: string;
}

type RunContext = RunWiring;

export async function startWorker(o: WorkerOptions): Promise<WorkerHandle> {
  const name = `${hostname()}:${process.pid}`;
  // Every process this worker starts says so: a resumed run on this machine leaves them alone.
  actAsWorker();
  await probeRedis(o.url);
  // Caches are shared by workers on one machine (safe: built atomically); trial directories are
  // per process, so a retried trial never lands on the leftovers of a dead worker, and what dead
  // workers left here is ended first.
  const workDir = resolve(o.workDir);
  const { dir: own, swept } = await claimWorkerDir(workDir);
  const said = describeSwept(swept, workDir);
  if (said) o.log(said);
  const paths = new RunPaths(join(own, 'trials.sqlite'), join(workDir, 'cache'));
  const contexts = new Map<string, Promise<RunContext>>();
  const abort = new AbortController();
  // Trials running here, by job id. A queue that hands out a trial again while it runs (Redis
  // restarted empty, and the coordinator enqueued it anew) gets the running one's result: the
  // same trial is never started twice in one worker.
  const running = new Map<string, Promise<TrialJobResult>>();

  // One agent and one set of model endpoints per run configuration, built on first use.
  const contextFor = (config: RunConfig): Promise<RunContext> => {
    const key = createHash('sha256').update(JSON.stringify(config)).digest('hex');
    let ctx = contexts.get(key);
    if (!ctx) {
      // This machine's sandbox, chosen by the run's --sandbox (bwrap must work here too).
      ctx = wireRun(config, {
        log: o.log,
        protectedPaths: [workDir, paths.root, paths.cacheDir, ...config.datasets],
      });
      ctx.catch(() => contexts.delete(key)); // a broken build may be fixed; try again next job
      contexts.set(key, ctx);
    }
    return ctx;
  };

  const processor = async (job: Job<TrialJobData, TrialJobResult>): Promise<TrialJobResult> => {
    const data = job.data;
    if (data.protocol !== PROTOCOL_VERSION)
      throw new Error(`job protocol ${data.protocol}, this worker speaks ${PROTOCOL_VERSION}`);
    const id = jobId(data.runId, data.spec.key);
    const already = running.get(id);
    if (already) {
      o.log(
        `${JSON.stringify(data.spec.key)} (run ${data.runId}) is already running here; this job waits for it`,
      );
      return already;
    }
    const trial = runJob(data);
    running.set(id, trial);
    try {
      return await trial;
    } finally {
      running.delete(id);
    }
  };

  const runJob = async (data: TrialJobData): Promise<TrialJobResult> => {
    const spec = specOf(data);
    o.log(`start ${JSON.stringify(spec.key)} (run ${data.runId})`);
    const { agent, endpoints, sandbox } = await contextFor(data.config);
    const rec = await runTrial(spec, {
      runId: data.runId,
      paths,
      agent,
      mirrorDir: o.mirror ? resolve(o.mirror) : data.config.mirror,
      keepWorkspaces: false,
      endpointFor: endpoints.endpointFor,
      signal: abort.signal,
      sandbox,
      integrity: data.config.integrity,
      provision: data.config.provision,
    });
    const artifacts = packArtifacts(rec.artifacts_dir);
    if (rec.artifacts_dir) rmSync(rec.artifacts_dir, { recursive: true, force: true });
    // Interrupted here is not a result: fail the attempt so the trial is run again.
    if (abort.signal.aborted) throw new Error(`worker ${name} stopped during the trial`);
    o.log(
      `done ${JSON.stringify(spec.key)}: ${rec.status === 'error' ? `ERROR ${rec.error}` : rec.label}`,
    );
    o.onDone?.(rec);
    return { record: rec, artifacts };
  };

  const worker = new Worker<TrialJobData, TrialJobResult>(QUEUE_NAME, processor, {
    connection: connectionFor(o.url),
    concurrency: o.concurrency,
    lockDuration: o.lockMs,
    stalledInterval: o.lockMs,
    // A trial whose worker died twice still gets a third chance before it is failed.
    maxStalledCount: 2,
  });
  worker.on('error', (e) => o.log(`queue error: ${e.message}`));
  await worker.waitUntilReady();
  o.log(`worker ${name} ready: concurrency ${o.concurrency}, lock ${o.lockMs} ms`);

  return {
    name,
    async close(force = false) {
      if (force) abort.abort();
      await worker.close(force);
      for (const ctx of contexts.values()) await (await ctx.catch(() => null))?.endpoints.close();
      // A trial aborted mid-way may not have unmounted its workspace yet.
      try {
        unmountUnder(own);
        rmSync(own, { recursive: true, force: true });
      } catch (e) {
        o.log(`could not remove ${own} (${(e as Error).message}); the next worker here will`);
      }
    },
  };
}
