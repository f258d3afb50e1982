// The scarce things a run's trials share, as pools (src/util/pool.ts):
// - request slots per provider: its `concurrency`, the requests it serves at once (a hosted API
//   many, a local model one). The proxy holds each request to that provider until one is free
//   (the request gate).
// - agent slots per provider, AGENTS_PER_REQUEST_SLOT times its request slots: between replies
//   an agent runs its tools, so keeping a provider busy takes more agents than request slots.
// - start slots, one per core: held from an agent's spawn to its first model request. Starting
//   Nanocoder (some 1,300 modules) is CPU work; twenty-four starting at once on two cores all
//   sent their first request after ten seconds, one per core at a time after two.
// - verify slots, a core (and memory) each, held while a trial's suites run.
// A trial holds each only around its own stage, so the minutes an agent waits on its model
// overlap with other trials' suites. Agents that are CPU-bound themselves (controls, command
// agents: `waitsOn: 'cpu'` in src/agent/agents.ts) take a verify slot for their agent run, which
// keeps their old one-trial-per-core behaviour.
import { agentsFor, HOSTED_REQUEST_SLOTS } from '../provider/providers-config.js';
import type { RequestGate } from '../provider/proxy.js';
import type { SlotStage, TrialSlots } from '../trial/slots.js';
import { Pool, type Release } from '../util/pool.js';
import { autoConcurrency } from './config.js';

/** How full the pools are, for progress lines. */
export interface SlotCounts {
  agents: { busy: number; size: number };
  /** Requests in flight to the providers, and their request slots (absent for CPU-bound agents). */
  requests?: { busy: number; size: number };
  verifying: { busy: number; size: number };
}

/** After a 429, the provider's request slots stay fewer this long beyond its retry-after. */
export const RATE_LIMIT_HOLD_MS = 10_000;

export interface SlotOptions {
  /** Verify slots: cores and memory (autoConcurrency in src/run/config.ts). */
  verify: number;
  /** Agents that may be starting at once (default: as many as verify slots). */
  starting?: number;
  /** Requests at once per provider (its `concurrency`); a provider not named gets `defaultRequests`. */
  requests: ReadonlyMap<string, number>;
  defaultRequests?: number;
  /** At most this many agents at once per provider (the run's --concurrency). */
  maxAgents?: number;
  /** `cpu`: the agent itself needs a core, so its run takes a verify slot. */
  agentWaitsOn: 'model' | 'cpu';
  now?: () => number;
  /** Called whenever a slot is taken or freed, or a pool changes size. */
  onChange?: (c: SlotCounts) => void;
}

/** The run's pools. */
export class Slots implements TrialSlots {
  private readonly verify: Pool;
  /** Agents starting (spawned, no model request yet): as many as there are cores. */
  private readonly starting: Pool;
  private readonly agents = new Map<string, Pool>();
  private readonly requests = new Map<string, Pool>();
  /** Provider -> until when its request slots are held at their reduced number. */
  private readonly slowed = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly o: SlotOptions) {
    this.verify = new Pool(Math.max(1, o.verify));
    this.starting = new Pool(Math.max(1, o.starting ?? o.verify));
    this.now = o.now ?? Date.now;
  }

  async acquire(
    stage: SlotStage,
    provider: string,
    signal?: AbortSignal,
    rank?: number,
  ): Promise<Release> {
    const pool =
      stage === 'start'
        ? this.starting
        : stage === 'agent'
          ? this.agentStagePool(provider)
          : this.verify;
    return this.held(pool, signal, rank);
  }

  /** The pool an agent runs in: its provider's agent slots, or a verify slot if CPU-bound. */
  private agentStagePool(provider: string): Pool {
    return this.o.agentWaitsOn === 'model' ? this.agentPool(provider) : this.verify;
  }

  /**
   * The proxy's gate for `provider`: one request slot per request in flight to it. A trial's
   * requests wait by its rank, as its slots do: the trials the run took first finish first, and
   * their suites run while the provider still serves the others.
   */
  requestGate(provider: string, rank?: number): RequestGate {
    return { acquire: (signal) => this.held(this.requestPool(provider), signal, rank) };
  }

  /**
   * The provider answered 429 with a retry-after: halve its request slots (at least 1) until the
   * wait is over and some more, instead of sending it as many requests again. Requests in flight
   * finish; the agents' own clients retry as they always do, and their retries wait for a slot.
   */
  rateLimited(provider: string, retryAfterMs: number): { size: number; forMs: number } {
    const pool = this.requestPool(provider);
    pool.resize(Math.max(1, Math.floor(pool.size / 2)));
    const until = Math.max(
      this.now() + Math.max(0, retryAfterMs) + RATE_LIMIT_HOLD_MS,
      this.slowed.get(provider) ?? 0,
    );
    this.slowed.set(provider, until);
    this.changed();
    return { size: pool.size, forMs: until - this.now() };
  }

  /** The requests a provider gets at once when not slowed down. */
  requestSlots(provider: string): number {
    return Math.max(
      1,
      this.o.requests.get(provider) ?? this.o.defaultRequests ?? HOSTED_REQUEST_SLOTS,
    );
  }

  /** The agents a provider gets at once. */
  agentSlots(provider: string): number {
    const n = agentsFor(this.requestSlots(provider));
    return this.o.maxAgents ? Math.min(n, this.o.maxAgents) : n;
  }

  counts(): SlotCounts {
    const sum = (pools: Map<string, Pool>, f: (p: Pool) => number) =>
      [...pools.values()].reduce((n, p) => n + f(p), 0);
    const of = (pools: Map<string, Pool>) => ({
      busy: sum(pools, (p) => p.busy),
      size: sum(pools, (p) => p.size),
    });
    return {
      agents: of(this.agents),
      ...(this.requests.size && { requests: of(this.requests) }),
      verifying: { busy: this.verify.busy, size: this.verify.size },
    };
  }

  /**
   * These slots as one trial asks for them: at its place `rank` in the run's order. With its
   * `provider`, the trial is expected at its agent stage from now on: while its workspace is
   * prepared, later-ranked trials that were ready sooner do not take its agent slot (the long
   * trials the run put first would otherwise start last, and end it late). `leave` when the trial
   * is over, whether or not its agent ran.
   */
  ranked(rank: number, provider?: string): TrialSlots {
    const leave = provider ? this.agentStagePool(provider).expect(rank) : () => {};
    return {
      acquire: (stage, p, signal) => this.acquire(stage, p, signal, rank),
      requestGate: (p) => this.requestGate(p, rank),
      leave,
    };
  }

  private async held(pool: Pool, signal?: AbortSignal, rank?: number): Promise<Release> {
    this.restore();
    const release = await pool.acquire(signal, rank);
    this.changed();
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      release();
      this.restore();
      this.changed();
    };
  }

  private agentPool(provider: string): Pool {
    this.requestPool(provider); // its requests' pool shows in counts from the first agent on
    return poolOf(this.agents, provider, () => this.agentSlots(provider));
  }

  private requestPool(provider: string): Pool {
    return poolOf(this.requests, provider, () => this.requestSlots(provider));
  }

  /** Providers whose rate-limit hold is over get their request slots back. */
  private restore(): void {
    const now = this.now();
    for (const [provider, until] of this.slowed) {
      if (now < until) continue;
      this.slowed.delete(provider);
      this.requestPool(provider).resize(this.requestSlots(provider));
    }
  }

  private changed(): void {
    this.o.onChange?.(this.counts());
  }
}

function poolOf(pools: Map<string, Pool>, key: string, size: () => number): Pool {
  let pool = pools.get(key);
  if (!pool) {
    pool = new Pool(size());
    pools.set(key, pool);
  }
  return pool;
}

/** `NANOBENCH_ONE_POOL=1`: no stage slots, a trial holds its place in flight (bench/run.mjs's "before"). */
export const onePool = () => process.env.NANOBENCH_ONE_POOL === '1';

/**
 * The slots of a local run: verify slots as the machine allows (never more than the trials in
 * flight), request slots per provider (src/provider/providers-config.ts) and agents for them,
 * within `concurrency`.
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
  return new Slots({
    verify: Math.min(autoConcurrency(), o.concurrency),
    requests: o.providerLimits,
    maxAgents: o.concurrency,
    agentWaitsOn: o.agentWaitsOn,
    onChange,
  });
}
