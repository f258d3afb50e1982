import { describe, expect, it } from 'vitest';
import { RATE_LIMIT_HOLD_MS, Slots } from '../../src/run/slots.js';

const tick = () => new Promise((r) => setImmediate(r));

/** Asks for a slot; `got` says whether it was granted yet. */
function ask(slots: Slots, stage: 'agent' | 'verify', provider = 'p', signal?: AbortSignal) {
  const o: { got: boolean; release?: () => void; error?: unknown } = { got: false };
  slots.acquire(stage, provider, signal).then(
    (r) => Object.assign(o, { got: true, release: r }),
    (e) => Object.assign(o, { error: e }),
  );
  return o;
}

describe('Slots', () => {
  it('limits agents per provider and suites by the verify pool, independently', async () => {
    const slots = new Slots({
      verify: 1,
      agents: new Map([['local', 1]]),
      defaultAgents: 2,
      agentWaitsOn: 'model',
    });
    const a = [ask(slots, 'agent', 'hosted'), ask(slots, 'agent', 'hosted')];
    const a3 = ask(slots, 'agent', 'hosted');
    const l = [ask(slots, 'agent', 'local'), ask(slots, 'agent', 'local')];
    const v = [ask(slots, 'verify'), ask(slots, 'verify')];
    await tick();
    expect([...a, a3, ...l, ...v].map((x) => x.got)).toEqual([
      true,
      true,
      false,
      true,
      false,
      true,
      false,
    ]);
    expect(slots.counts()).toEqual({
      agents: { busy: 3, size: 3 },
      verifying: { busy: 1, size: 1 },
    });
    a[0].release!();
    a[0].release!(); // idempotent: frees one slot, not two
    v[0].release!();
    await tick();
    expect([a3.got, l[1].got, v[1].got]).toEqual([true, false, true]);
    expect(slots.counts().agents.busy).toBe(3);
  });

  it('gives a CPU-bound agent a verify slot for its run', async () => {
    const slots = new Slots({ verify: 1, agents: new Map(), agentWaitsOn: 'cpu' });
    const agent = ask(slots, 'agent');
    const suite = ask(slots, 'verify');
    await tick();
    expect([agent.got, suite.got]).toEqual([true, false]);
    expect(slots.counts().agents.size).toBe(0);
    agent.release!();
    await tick();
    expect(suite.got).toBe(true);
  });

  it('serves waiters in order and drops one whose trial was interrupted', async () => {
    const slots = new Slots({ verify: 1, agents: new Map(), agentWaitsOn: 'model' });
    const first = ask(slots, 'verify');
    const stop = new AbortController();
    const gone = ask(slots, 'verify', 'p', stop.signal);
    const next = ask(slots, 'verify');
    await tick();
    stop.abort();
    await tick();
    expect(gone.error).toBeDefined();
    first.release!();
    await tick();
    expect([gone.got, next.got]).toEqual([false, true]);
  });

  it("serves waiters by their place in the run's order, then first come", async () => {
    const slots = new Slots({ verify: 1, agents: new Map(), agentWaitsOn: 'model' });
    const holder = slots.acquire('verify', 'p');
    const served: string[] = [];
    const wait = (name: string, rank?: number) =>
      (rank === undefined ? slots : slots.ranked(rank)).acquire('verify', 'p').then((release) => {
        served.push(name);
        release();
      });
    // Asked in this order; the trial ranked 2 was dispatched before the one ranked 7.
    const all = [wait('rank 7', 7), wait('unranked'), wait('rank 2', 2), wait('rank 7 again', 7)];
    await tick();
    (await holder)();
    await Promise.all(all);
    expect(served).toEqual(['rank 2', 'rank 7', 'rank 7 again', 'unranked']);
  });

  it("halves a rate-limited provider's pool (at least 1) for its retry-after, then restores it", async () => {
    let now = 0;
    const changes: number[] = [];
    const slots = new Slots({
      verify: 2,
      agents: new Map([['p', 4]]),
      agentWaitsOn: 'model',
      now: () => now,
      onChange: (c) => changes.push(c.agents.size),
    });
    const held = [1, 2, 3, 4].map(() => ask(slots, 'agent'));
    await tick();
    slots.rateLimited('p', 5_000);
    expect(slots.counts().agents.size).toBe(2);
    slots.rateLimited('p', 5_000);
    slots.rateLimited('p', 5_000);
    expect(slots.counts().agents.size).toBe(1);
    // Trials in flight keep their slots; new ones wait until the pool has room.
    for (const h of held.slice(0, 3)) h.release!();
    const waiting = ask(slots, 'agent');
    await tick();
    expect(waiting.got).toBe(false);
    now = 5_000 + RATE_LIMIT_HOLD_MS - 1;
    held[3].release!();
    await tick();
    expect(waiting.got).toBe(true);
    expect(slots.counts().agents.size).toBe(1);
    now = 5_000 + RATE_LIMIT_HOLD_MS;
    const more = [ask(slots, 'agent'), ask(slots, 'agent')];
    await tick();
    expect(slots.counts().agents.size).toBe(4);
    expect(more.map((m) => m.got)).toEqual([true, true]);
    expect(changes).toContain(1);
  });
});
