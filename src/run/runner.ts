// Scheduling: run the plan's pending trials K at a time, storing each as it finishes.
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

export interface ExecuteOptions {
  store: Store;
  plan: TrialSpec[];
  env: Omit<TrialEnv, 'signal'>;
  concurrency: number;
  onProgress?: (e: ProgressEvent) => void;
  onStart?: (spec: TrialSpec) => void;
}

export interface ExecuteResult {
  interrupted: boolean;
  ran: number;
  skipped: number;
}

export async function executePlan(opts: ExecuteOptions): Promise<ExecuteResult> {
  const { store, env } = opts;
  const stored = store.trialKeys(env.runId);
  const pending = opts.plan.filter((t) => !stored.has(t.key));
  const total = opts.plan.length;
  let done = opts.plan.length - pending.length;
  const controller = new AbortController();
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let next = 0;
  let ran = 0;
  const worker = async () => {
    while (!controller.signal.aborted && next < pending.length) {
      const spec = pending[next++];
      opts.onStart?.(spec);
      const rec = await runTrial(spec, { ...env, signal: controller.signal });
      if (controller.signal.aborted) return; // unfinished: --resume will run it
      store.insertTrial(rec);
      ran++;
      done++;
      opts.onProgress?.({ done, total, trial: rec });
    }
  };
  try {
    store.setRunStatus(env.runId, 'running');
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(opts.concurrency, pending.length)) }, worker),
    );
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const interrupted = controller.signal.aborted;
  store.setRunStatus(env.runId, interrupted ? 'interrupted' : 'finished');
  return { interrupted, ran, skipped: opts.plan.length - pending.length };
}
