// What a trial asks of the run's slots (src/run/slots.ts): one around its agent, one around its
// suites. Without slots (validate, the gates, a queue worker's trials) a stage just runs.
import type { RequestGate } from '../provider/proxy.js';
import type { Release } from '../util/pool.js';

export type { Release };

/**
 * The stage of a trial that waits for a slot. `start`: an agent that waits on its model, from its
 * spawn to its first model request (its own start is CPU work; src/run/slots.ts).
 */
export type SlotStage = 'agent' | 'start' | 'verify';

export interface TrialSlots {
  acquire(stage: SlotStage, provider: string, signal?: AbortSignal): Promise<Release>;
  /**
   * The same slots as the trial at place `rank` of the run's order asks for them (lower first);
   * with `provider`, its agent slot is kept for it while it prepares (src/run/slots.ts).
   */
  ranked?(rank: number, provider?: string): TrialSlots;
  /** The trial is over: a place kept for it (`ranked`) goes to the others. */
  leave?(): void;
  /** The request slots of `provider`, which the trial's model requests wait for at the proxy. */
  requestGate?(provider: string): RequestGate;
}

/**
 * Holds a slot of `stage` around `fn` (or until `until` settles, if sooner); reports the time
 * waited for it to `waited`.
 */
export async function withSlot<T>(
  slots: TrialSlots | undefined,
  stage: SlotStage,
  provider: string,
  signal: AbortSignal | undefined,
  waited: (ms: number) => void,
  fn: () => Promise<T>,
  until?: Promise<unknown>,
): Promise<T> {
  if (!slots) return fn();
  const asked = Date.now();
  const release = await slots.acquire(stage, provider, signal);
  waited(Date.now() - asked);
  void until?.then(release, release);
  try {
    return await fn();
  } finally {
    release();
  }
}
