// A counting semaphore whose size can change: the run's slots (src/run/slots.ts) and a provider's
// requests in flight (the proxy's request gate) are both one of these.

/** Frees what was taken (idempotent). */
export type Release = () => void;

/**
 * How long a place is kept for a trial that is expected but not asking yet (its workspace still
 * being prepared). Long enough for a prepared environment (under a second to a few), short enough
 * that a task's first trial building its environment for minutes does not idle a slot for long.
 */
export const PLACE_HOLD_MS = 10_000;

/**
 * Waiters are served by rank (lower first), then first come, first served: a trial's rank is its
 * place in the run's order, so a trial whose workspace took longer to prepare does not lose its
 * turn to the ones dispatched after it. A trial can also be expected (`expect`) before it asks:
 * then a free slot is kept for it, for up to `holdMs`, rather than given to a later-ranked trial
 * that happened to be ready first.
 */
export class Pool {
  busy = 0;
  private readonly waiters: { rank: number; wake: () => void }[] = [];
  /** Expected, not asking yet: rank, and until when a slot is kept for it. */
  private readonly expected: { rank: number; until: number }[] = [];
  private lapse?: NodeJS.Timeout;
  constructor(
    public size: number,
    private readonly holdMs = PLACE_HOLD_MS,
  ) {}

  /** Waiting now (for progress lines). */
  get queued(): number {
    return this.waiters.length;
  }

  /**
   * The trial ranked `rank` will ask soon: until it does (or `holdMs` passes, or the returned
   * function is called because it never will), later-ranked trials do not take its slot.
   */
  expect(rank: number): Release {
    const place = { rank, until: Date.now() + this.holdMs };
    this.expected.push(place);
    this.scheduleLapse();
    return () => this.forget(place);
  }

  acquire(signal?: AbortSignal, rank = Number.POSITIVE_INFINITY): Promise<Release> {
    // Its own held place is used now (not freed to the others first).
    const own = this.expected.findIndex((e) => e.rank === rank);
    if (own >= 0) this.expected.splice(own, 1);
    if (this.busy + this.ahead(rank, true) < this.size) return Promise.resolve(this.take());
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
        this.drain(); // a slot it was kept from may now go to the next one
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

  /** Trials that come before `rank`: expected ones still held for, and (for a newcomer) waiters. */
  private ahead(rank: number, countWaiters: boolean): number {
    const t = Date.now();
    const held = this.expected.filter((e) => e.rank < rank && e.until > t).length;
    return held + (countWaiters ? this.waiters.filter((w) => w.rank <= rank).length : 0);
  }

  private forget(place: { rank: number; until: number } | undefined): void {
    const i = place ? this.expected.indexOf(place) : -1;
    if (i < 0) return;
    this.expected.splice(i, 1);
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
    while (this.waiters.length && this.busy + this.ahead(this.waiters[0].rank, false) < this.size)
      this.waiters.shift()!.wake();
  }

  /** When the earliest held place lapses, drop the lapsed ones and serve who waited behind them. */
  private scheduleLapse(): void {
    if (this.lapse || !this.expected.length) return;
    const next = Math.min(...this.expected.map((e) => e.until));
    this.lapse = setTimeout(
      () => {
        this.lapse = undefined;
        const t = Date.now();
        for (const e of this.expected.filter((x) => x.until <= t))
          this.expected.splice(this.expected.indexOf(e), 1);
        this.drain();
        this.scheduleLapse();
      },
      Math.max(0, next - Date.now()),
    );
    this.lapse.unref();
  }
}
