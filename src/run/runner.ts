// Scheduling: run the plan's pending trials, storing each as it finishes. Who runs a trial is an
// executor: the local pool (K in flight in this process, the default) or a queue of remote
// workers (src/queue/). Either way the store is written here, one transaction per trial.
// Interrupt (SIGINT/SIGTERM) stops new trials, aborts the ones in flight (they are not stored,
// so --resume runs them again) and marks the run interrupted.
import { setMaxListeners } from 'node:events';
import type { Store, TrialRecord } from '../store/store.js';
import type { TrialEnv } from '../trial/env.js';
import { runTrial } from '../trial/run-trial.js';
import type { TrialSlots } from '../trial/slots.js';
import { DiskFullError, diskFullAt, isDiskFull } from '../util/disk-full.js';
import { InfraError } from '../util/errors.js';
import { longestFirst, type TrialSpec } from './plan.js';

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
  /** A failure that stops the run (the disk is full): the trial is not reported. */
  onFatal?: (e: unknown) => void;
}

/** Runs trials somewhere. Trials cut short by the signal must not be reported. */
export interface TrialExecutor {
  execute(pending: TrialSpec[], hooks: ExecutorHooks): Promise<void>;
  close?(): Promise<void>;
}

/**
 * The local pool: at most `concurrency` trials in flight, in plan order (with slots, the longest
 * expected first); each trial prepares its
 * workspace only when it starts, so the prepared workspaces alive at once are bounded by
 * `concurrency` however long the plan. With `slots`, a trial in flight waits for an agent slot of
 * its provider around its agent and for a verify slot around its suites (src/run/slots.ts).
 */
export function localExecutor(
  env: Omit<TrialEnv, 'signal'>,
  concurrency: number,
  slots?: TrialSlots,
  run: typeof runTrial = runTrial,
): TrialExecutor {
  return {
    async execute(pending, { signal, onStart, onResult, onFatal }) {
      // With slots, the long trials first (plan.ts, longestFirst), and a trial waiting for a
      // slot is served in that order, not in the order the workspaces happened to be ready.
      const all = slots ? longestFirst(pending) : pending;
      let next = 0;
      const worker = async () => {
        while (!signal.aborted && next < all.length) {
          const rank = next++;
          const spec = all[rank];
          const mine = slots?.ranked?.(rank, spec.provider) ?? slots;
          onStart?.(spec);
          let rec: TrialRecord;
          try {
            rec = await run(spec, { ...env, signal, ...(mine && { slots: mine }) });
          } catch (e) {
            if (!(e instanceof DiskFullError) || !onFatal) throw e;
            return onFatal(e);
          } finally {
            mine?.leave?.();
          }
          if (signal.aborted) return; // unfinished: --resume will run it
          // Its suites may have failed for want of space: not a result to keep.
          if (onFatal && diskFullAt(env.paths.root))
            return onFatal(new DiskFullError(env.paths.root, undefined));
          onResult(rec);
        }
      };
      const k = Math.max(1, Math.min(concurrency, all.length));
      await Promise.all(Array.from({ length: k }, worker));
    },
  };
}

export interface ExecuteOptions {
  store: Store;
  plan: TrialSpec[];
  env: Omit<TrialEnv, 'signal'>;
  /** Trials in flight at most. */
  concurrency: number;
  /** The agent and verify slots of the local pool (none: a trial holds only its place in flight). */
  slots?: TrialSlots;
  /** Default: the local pool, `concurrency` trials in flight. */
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

/**
 * The run left resumable after the disk filled: marked interrupted where the store can still
 * write that (else it stays "running" under a lease whose holder is gone, which --resume takes).
 */
function stoppedByFullDisk(
  store: Store,
  env: ExecuteOptions['env'],
  e: unknown,
  done: number,
  total: number,
): InfraError {
  try {
    store.setRunStatus(env.runId, 'interrupted');
  } catch {
    // no space even for that
  }
  return new InfraError(
    'disk',
    `${(e as Error).message}: run ${env.runId} stopped with ${done} of ${total} trials stored (those in flight were not); free some space, then finish it with "nanobench run --resume ${env.runId} --db ${env.paths.dbPath}"`,
    'disk_full',
  );
}

export async function executePlan(opts: ExecuteOptions): Promise<ExecuteResult> {
  const { store, env } = opts;
  const executor = opts.executor ?? localExecutor(env, opts.concurrency, opts.slots);
  const stored = store.trialKeys(env.runId);
  const pending = opts.plan.filter((t) => !stored.has(t.key));
  const total = opts.plan.length;
  let done = opts.plan.length - pending.length;
  const controller = new AbortController();
  // Every trial in flight, and every one waiting for a slot, listens to it.
  setMaxListeners(0, controller.signal);
  const onSignal = () => controller.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  opts.signal?.addEventListener('abort', onSignal, { once: true });
  let ran = 0;
  // The disk filled: stop like on an interrupt (trials in flight are not stored) and say so.
  let fatal: unknown;
  const onFatal = (e: unknown) => {
    fatal ??= e;
    controller.abort();
  };
  try {
    store.setRunStatus(env.runId, 'running');
    await executor.execute(pending, {
      signal: controller.signal,
      onStart: opts.onStart,
      onFatal,
      onResult: (rec) => {
        if (opts.signal?.aborted || fatal) return; // no longer ours to write
        let stored: boolean;
        try {
          stored = store.insertTrial(rec);
        } catch (e) {
          if (!isDiskFull(e)) throw e;
          return onFatal(new DiskFullError(env.paths.root, e));
        }
        // false: already stored (a queue can deliver a result twice); count it once.
        if (!stored) return;
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
  if (fatal) throw stoppedByFullDisk(store, env, fatal, done, total);
  const interrupted = controller.signal.aborted;
  if (!opts.signal?.aborted)
    store.setRunStatus(env.runId, interrupted ? 'interrupted' : 'finished');
  return { interrupted, ran, skipped: opts.plan.length - pending.length };
}
