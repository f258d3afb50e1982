import { afterEach, describe, expect, it, vi } from 'vitest';
import { Pool } from '../../src/util/pool.js';

/** Asks `pool` for a slot at `rank`; `got` says whether it was granted yet. */
function ask(pool: Pool, rank?: number, signal?: AbortSignal) {
  const o: { got: boolean; release?: () => void; error?: unknown } = { got: false };
  pool.acquire(signal, rank).then(
    (r) => Object.assign(o, { got: true, release: r }),
    (e) => Object.assign(o, { error: e }),
  );
  return o;
}
const tick = () => new Promise((r) => setImmediate(r));

describe('Pool: places kept for expected trials', () => {
  afterEach(() => vi.useRealTimers());

  it('keeps a free slot for an expected lower rank instead of a later rank that asked first', async () => {
    const pool = new Pool(2, 60_000);
    pool.expect(0);
    pool.expect(1);
    const late = ask(pool, 5); // ready first, ranked after both
    await tick();
    expect(late.got).toBe(false);
    const first = ask(pool, 0);
    await tick();
    expect([first.got, late.got]).toEqual([true, false]);
    const second = ask(pool, 1);
    await tick();
    expect([second.got, late.got]).toEqual([true, false]);
    first.release!();
    await tick();
    expect(late.got).toBe(true);
  });

  it('gives the place up when its trial leaves without asking, or after the hold', async () => {
    vi.useFakeTimers();
    const pool = new Pool(1, 5_000);
    const leave = pool.expect(0);
    const a = ask(pool, 3);
    await vi.advanceTimersByTimeAsync(0);
    expect(a.got).toBe(false);
    leave(); // its workspace could not be prepared: it never asks
    await vi.advanceTimersByTimeAsync(0);
    expect(a.got).toBe(true);

    pool.expect(1); // expected, but preparing for longer than the hold
    a.release!();
    const b = ask(pool, 4);
    await vi.advanceTimersByTimeAsync(4_999);
    expect(b.got).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(b.got).toBe(true); // the place lapsed: the slot is not left idle any longer
  });

  it('lets an expected trial that asks take its place even with later ranks waiting', async () => {
    const pool = new Pool(1, 60_000);
    pool.expect(2);
    const waiting = [ask(pool, 7), ask(pool, 9)];
    await tick();
    const own = ask(pool, 2);
    await tick();
    expect([own.got, ...waiting.map((w) => w.got)]).toEqual([true, false, false]);
    own.release!();
    await tick();
    expect(waiting.map((w) => w.got)).toEqual([true, false]);
  });

  it('without expectations, serves by rank and then first come, and drops an aborted waiter', async () => {
    const pool = new Pool(1);
    const holder = ask(pool);
    const stop = new AbortController();
    const gone = ask(pool, 1, stop.signal);
    const b = ask(pool, 4);
    const c = ask(pool, 2);
    await tick();
    stop.abort();
    holder.release!();
    await tick();
    expect([gone.got, c.got, b.got]).toEqual([false, true, false]);
    expect(gone.error).toBeDefined();
  });
});
