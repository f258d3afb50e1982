// Two kinds of slot for the stages of a trial that need something scarce. An agent slot is one
// request stream to a provider: a hosted API serves many at once, a local model one, so each
// provider has its own pool. A verify slot is a core (and memory) for a test suite. A trial holds
// an agent slot only while its agent runs and a verify slot only while its suites run, so the
// minutes an agent waits on its model overlap with other trials' suites. Agents that are
// CPU-bound themselves (controls, command agents: `waitsOn: 'cpu'` in src/agent/agents.ts) take a
// verify slot for their agent run, which keeps their old one-trial-per-core behaviour.
import { HOSTED_AGENT_SLOTS } from '../provider/providers-config.js';
import type { Release, SlotStage, TrialSlots } from '../trial/slots.js';
import { autoConcurrency } from './config.js';

/** How full the pools are, for progress lines. */
export interface SlotCounts {
  agents: { busy: number; size: number };
  verifying: { busy: number; size: number };
}

/** After a 429, the provider's pool stays smaller this long beyond its retry-after. */
export const RATE_LIMIT_HOLD_MS = 10_000;

/**
 * A counting semaphore whose size can change. Waiters are served by rank (lower first), then first
 * come, first served: a trial's rank is its place in the run's order, so a trial whose workspace
 * took longer to prepare does not lose its turn to the ones dispatched after it.
 */
class Pool {
  busy = 0;
  private readonly waiters: { rank: number; wake: () => void }[] = [];
  constructor(public size: number) {}

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

export interface SlotOptions {
  /** Verify slots: cores and memory (autoConcurrency in src/run/config.ts). */
  verify: number;
  /** Agent slots per provider; a provider not named gets `defaultAgents`. */
  agents: ReadonlyMap<string, number>;
  defaultAgents?: number;
  /** `cpu`: the agent itself needs a core, so its run takes a verify slot. */
  agentWaitsOn: 'model' | 'cpu';
  now?: () => number;
  /** Called whenever a slot is taken or freed, or a pool changes size. */
  onChange?: (c: SlotCounts) => void;
}

/** The run's pools. */
export class Slots implements TrialSlots {
  private readonly verify: Pool;
  private readonly agents = new Map<string, Pool>();
  /** Provider -> until when its pool is held at its reduced size. */
  private readonly slowed = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly o: SlotOptions) {
    this.verify = new Pool(Math.max(1, o.verify));
    this.now = o.now ?? Date.now;
  }

  async acquire(
    stage: SlotStage,
    provider: string,
    signal?: AbortSignal,
    rank?: number,
  ): Promise<Release> {
    const pool =
      stage === 'agent' && this.o.agentWaitsOn === 'model' ? this.agentPool(provider) : this.verify;
    this.restore();
    const release = await pool.acquire(signal, rank);
    this.changed();
    return () => {
      release();
      this.restore();
      this.changed();
    };
  }

  /**
   * The provider answered 429 with a retry-after: halve its pool (at least 1) until the wait is
   * over and some more, instead of sending it as many requests again. Trials in flight keep their
   * slots; the agent's own client retries as it always does.
   */
  rateLimited(provider: string, retryAfterMs: number): { size: number; forMs: number } {
    const pool = this.agentPool(provider);
    pool.resize(Math.max(1, Math.floor(pool.size / 2)));
    const until = Math.max(
      this.now() + Math.max(0, retryAfterMs) + RATE_LIMIT_HOLD_MS,
      this.slowed.get(provider) ?? 0,
    );
    this.slowed.set(provider, until);
    this.changed();
    return { size: pool.size, forMs: until - this.now() };
  }

  /** The pool sizes a provider has when not slowed down. */
  agentSlots(provider: string): number {
    return Math.max(1, this.o.agents.get(provider) ?? this.o.defaultAgents ?? HOSTED_AGENT_SLOTS);
  }

  counts(): SlotCounts {
    const pools = [...this.agents.values()];
    const sum = (f: (p: Pool) => number) => pools.reduce((n, p) => n + f(p), 0);
    return {
      agents: { busy: sum((p) => p.busy), size: sum((p) => p.size) },
      verifying: { busy: this.verify.busy, size: this.verify.size },
    };
  }

  private agentPool(provider: string): Pool {
    let pool = this.agents.get(provider);
    if (!pool) {
      pool = new Pool(this.agentSlots(provider));
      this.agents.set(provider, pool);
    }
    return pool;
  }

  /** Pools whose rate-limit hold is over go back to their full size. */
  private restore(): void {
    const now = this.now();
    for (const [provider, until] of this.slowed) {
      if (now < until) continue;
      this.slowed.delete(provider);
      this.agentPool(provider).resize(this.agentSlots(provider));
    }
  }

  private changed(): void {
    this.o.onChange?.(this.counts());
  }

  /** These slots as one trial asks for them: at its place `rank` in the run's order. */
  ranked(rank: number): TrialSlots {
    return { acquire: (stage, provider, signal) => this.acquire(stage, provider, signal, rank) };
  }
}

/** `NANOBENCH_ONE_POOL=1`: no stage slots, a trial holds its place in flight (bench/run.mjs's "before"). */
export const onePool = () => process.env.NANOBENCH_ONE_POOL === '1';

/**
 * The slots of a local run: verify slots as the machine allows (never more than the trials in
 * flight), agent slots per provider (src/provider/providers-config.ts), each within
 * `concurrency`.
 */
export function runSlots(
  o: {
    concurrency: number;
    agentWaitsOn: 'model' | 'cpu';
    providerLimits: ReadonlyMap<string, number>;
  },
  onChange?: (c: SlotCounts) => void,
): Slots | undefined {
  if (onePool()) return undefined;
  const agents = new Map([...o.providerLimits].map(([p, n]) => [p, Math.min(n, o.concurrency)]));
  return new Slots({
    verify: Math.min(autoConcurrency(), o.concurrency),
    agents,
    defaultAgents: Math.min(HOSTED_AGENT_SLOTS, o.concurrency),
    agentWaitsOn: o.agentWaitsOn,
    onChange,
  });
}
