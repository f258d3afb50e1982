// A counting semaphore whose size can change: the run's slots (src/run/slots.ts) and a provider's
// requests in flight (the proxy's request gate) are both one of these.

/** Frees what was taken (idempotent). */
export type Release = () => void;

/**
 * Waiters are served by rank (lower first), then first come, first served: a trial's rank is its
 * place in the run's order, so a trial whose workspace took longer to prepare does not lose its
 * turn to the ones dispatched after it.
 */
export class Pool {
  busy = 0;
  private readonly waiters: { rank: number; wake: () => void }[] = [];
  constructor(public size: number) {}

  /** Waiting now (for progress lines). */
  get queued(): number {
    return this.waiters.length;
  }

  acquire(signal?: AbortSignal, rank = Number.POSITIVE_INFINITY): Promise<Release> {
    if (this.busy < this.size && this.waiters.length === 0) return Promise.resolve(this.take());
    return new Promise<Release>((resolve, reject) => {
      const waiter = {
        rank,
        wake: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve(this.take());
        },
      };
      const onAbort = () => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal?.reason ?? new Error('aborted'));
      };
      if (signal?.aborted) return onAbort();
      signal?.addEventListener('abort', onAbort, { once: true });
      const at = this.waiters.findIndex((w) => w.rank > rank);
      this.waiters.splice(at < 0 ? this.waiters.length : at, 0, waiter);
    });
  }

  resize(size: number): void {
    this.size = size;
    this.drain();
  }

  private take(): Release {
    this.busy++;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      this.busy--;
      this.drain();
    };
  }

  private drain(): void {
    while (this.busy < this.size && this.waiters.length) this.waiters.shift()!.wake();
  }
}
