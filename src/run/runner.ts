// Scheduling: run the plan's pending trials, storing each as it finishes. Who runs a trial is an
// executor: the local pool (K at a time in this process, the default) or a queue of remote
// workers (src/queue/). Either way the store is written here, one transaction per trial.
// Interrupt (SIGINT/SIGTERM) stops new trials, aborts the ones in flight (they are not stored,
// so --resume runs them again) and marks the run interrupted.
import type { Store, TrialRecord } from '../store/store.js';
import type { TrialSpec } from './plan.js';
import { runTrial, type TrialEnv } from './trial.js';

export interface ProgressEvent {
  done: number;
  total: number;
  trial: TrialRecord;
}

export interface ExecutorHooks {
  /** Aborted on interrupt: start nothing new and return soon. */
  signal: AbortSignal;
  onStart?: (spec: TrialSpec) => void;
  /** A finished trial, ready to store (its artifacts already in place). */
  onResult: (rec: TrialRecord) => void;
}

/** Runs trials somewhere. Trials cut short by the signal must not be reported. */
export interface TrialExecutor {
  execute(pending: TrialSpec[], hooks: ExecutorHooks): Promise<void>;
  close?(): Promise<void>;
}

export function localExecutor(env: Omit<TrialEnv, 'signal'>, concurrency: number): TrialExecutor {
  return {
    async execute(pending, { signal, onStart, onResult }) {
      let next = 0;
      const worker = async () => {
        while (!signal.aborted && next < pending.length) {
          const spec = pending[next++];
          onStart?.(spec);
          const rec = await runTrial(spec, { ...env, signal });
          if (signal.aborted) return; // unfinished: --resume will run it
          onResult(rec);
        }
      };
      const k = Math.max(1, Math.min(concurrency, pending.length));
      await Promise.all(Array.from({ length: k }, worker));
    },
  };
}

export interface ExecuteOptions {
  store: Store;
  plan: TrialSpec[];
  env: Omit<TrialEnv, 'signal'>;
  concurrency: number;
  /** Default: the local pool with `concurrency` slots. */
  executor?: TrialExecutor;
  onProgress?: (e: ProgressEvent) => void;
  onStart?: (spec: TrialSpec) => void;
  /**
   * Aborted when this process may no longer run the run (its lease was taken over): stop like
   * on an interrupt, store nothing more, and leave the run's status to its new holder.
   */
  signal?: AbortSignal;
}

export interface ExecuteResult {
  interrupted: boolean;
  ran: number;
  skipped: number;
}

export async function executePlan(opts: ExecuteOptions): Promise<ExecuteResult> {
  const { store, env } = opts;
  const executor = opts.executor ?? localExecutor(env, opts.concurrency);
  const stored = store.trialKeys(env.runId);
  const pending = opts.plan.filter((t) => !stored.has(t.key));
  const total = opts.plan.length;
  let done = opts.plan.length - pending.length;
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  opts.signal?.addEventListener('abort', onSignal, { once: true });
  let ran = 0;
  try {
    store.setRunStatus(env.runId, 'running');
    await executor.execute(pending, {
      signal: controller.signal,
      onStart: opts.onStart,
      onResult: (rec) => {
        if (opts.signal?.aborted) return; // no longer ours to write
        // false: already stored (a queue can deliver a result twice); count it once.
        if (!store.insertTrial(rec)) return;
        ran++;
        done++;
        opts.onProgress?.({ done, total, trial: rec });
      },
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    opts.signal?.removeEventListener('abort', onSignal);
  }
  const interrupted = controller.signal.aborted;
  if (!opts.signal?.aborted)
    store.setRunStatus(env.runId, interrupted ? 'interrupted' : 'finished');
  return { interrupted, ran, skipped: opts.plan.length - pending.length };
}
