import { describe, expect, it } from 'vitest';
import { agentsFor } from '../../src/provider/providers-config.js';
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
  it('gives each provider agents for its request slots, and suites the verify pool, independently', async () => {
    const slots = new Slots({
      verify: 1,
      requests: new Map([['local', 1]]),
      defaultRequests: 2,
      agentWaitsOn: 'model',
    });
    // 2 request slots: 3 agents (AGENTS_PER_REQUEST_SLOT 1.5); 1 request slot: 2 agents.
    expect([slots.agentSlots('hosted'), slots.agentSlots('local')]).toEqual([
      agentsFor(2),
      agentsFor(1),
    ]);
    expect([agentsFor(2), agentsFor(1), agentsFor(16)]).toEqual([3, 2, 24]);
    const a = [1, 2, 3].map(() => ask(slots, 'agent', 'hosted'));
    const a4 = ask(slots, 'agent', 'hosted');
    const l = [1, 2, 3].map(() => ask(slots, 'agent', 'local'));
    const v = [ask(slots, 'verify'), ask(slots, 'verify')];
    await tick();
    expect([...a, a4, ...l, ...v].map((x) => x.got)).toEqual([
      true,
      true,
      true,
      false,
      true,
      true,
      false,
      true,
      false,
    ]);
    expect(slots.counts()).toEqual({
      agents: { busy: 5, size: 5 },
      requests: { busy: 0, size: 3 },
      verifying: { busy: 1, size: 1 },
    });
    a[0].release!();
    a[0].release!(); // idempotent: frees one slot, not two
    v[0].release!();
    await tick();
    expect([a4.got, l[2].got, v[1].got]).toEqual([true, false, true]);
    expect(slots.counts().agents.busy).toBe(5);
  });

  it("holds a provider's requests to its request slots, and --concurrency bounds its agents", async () => {
    const slots = new Slots({
      verify: 1,
      requests: new Map([['p', 2]]),
      maxAgents: 2,
      agentWaitsOn: 'model',
    });
    expect(slots.agentSlots('p')).toBe(2);
    const gate = slots.requestGate('p');
    const asked = [1, 2, 3].map(() => {
      const o: { got: boolean; release?: () => void } = { got: false };
      gate.acquire().then((r) => Object.assign(o, { got: true, release: r }));
      return o;
    });
    await tick();
    expect(asked.map((x) => x.got)).toEqual([true, true, false]);
    expect(slots.counts().requests).toEqual({ busy: 2, size: 2 });
    asked[1].release!();
    await tick();
    expect(asked[2].got).toBe(true);
  });

  it('gives a CPU-bound agent a verify slot for its run', async () => {
    const slots = new Slots({ verify: 1, requests: new Map(), agentWaitsOn: 'cpu' });
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
    const slots = new Slots({ verify: 1, requests: new Map(), agentWaitsOn: 'model' });
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
    const slots = new Slots({ verify: 1, requests: new Map(), agentWaitsOn: 'model' });
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

  it("halves a rate-limited provider's request slots (at least 1) for its retry-after, then restores them", async () => {
    let now = 0;
    const changes: number[] = [];
    const slots = new Slots({
      verify: 2,
      requests: new Map([['p', 4]]),
      agentWaitsOn: 'model',
      now: () => now,
      onChange: (c) => changes.push(c.requests?.size ?? 0),
    });
    const gate = slots.requestGate('p');
    const request = () => {
      const o: { got: boolean; release?: () => void } = { got: false };
      gate.acquire().then((r) => Object.assign(o, { got: true, release: r }));
      return o;
    };
    const held = [1, 2, 3, 4].map(request);
    await tick();
    slots.rateLimited('p', 5_000);
    expect(slots.counts().requests!.size).toBe(2);
    slots.rateLimited('p', 5_000);
    slots.rateLimited('p', 5_000);
    expect(slots.counts().requests!.size).toBe(1);
    // The agents keep running: only their requests go out fewer at once.
    expect(slots.agentSlots('p')).toBe(agentsFor(4));
    // Requests in flight finish; new ones wait until there is room.
    for (const h of held.slice(0, 3)) h.release!();
    const waiting = request();
    await tick();
    expect(waiting.got).toBe(false);
    now = 5_000 + RATE_LIMIT_HOLD_MS - 1;
    held[3].release!();
    await tick();
    expect(waiting.got).toBe(true);
    expect(slots.counts().requests!.size).toBe(1);
    now = 5_000 + RATE_LIMIT_HOLD_MS;
    const more = [request(), request()];
    await tick();
    expect(slots.counts().requests!.size).toBe(4);
    expect(more.map((m) => m.got)).toEqual([true, true]);
    expect(changes).toContain(1);
  });
});
