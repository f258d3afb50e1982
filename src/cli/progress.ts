// Progress on stderr: a live status line on a TTY, plain lines otherwise (CI logs, pipes).

import type { TrialSpec } from '../run/plan.js';
import type { ProgressEvent } from '../run/runner.js';
import type { SlotCounts } from '../run/slots.js';

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** "1:05", "12:00:03": a duration for a progress line. */
export function clockText(ms: number): string {
  const t = Math.max(0, Math.round(ms / 1000));
  const [h, m, sec] = [Math.floor(t / 3600), Math.floor((t % 3600) / 60), t % 60];
  const two = (n: number) => String(n).padStart(2, '0');
  return h ? `${h}:${two(m)}:${two(sec)}` : `${m}:${two(sec)}`;
}

/**
 * Elapsed time since the plan, and the time left at the pace of the trials this process finished
 * (trials stored before a --resume took no time here, so they do not count toward the pace).
 */
export function etaText(elapsedMs: number, ranHere: number, remaining: number): string {
  if (ranHere < 1) return `${clockText(elapsedMs)} elapsed`;
  const left = remaining > 0 ? `, about ${clockText((elapsedMs / ranHere) * remaining)} left` : '';
  return `${clockText(elapsedMs)} elapsed${left}`;
}

/** "ETA 41 min", "ETA 2 h 5 min", "ETA <1 min"; empty before any trial finished here. */
export function etaMinutes(elapsedMs: number, ranHere: number, remaining: number): string {
  if (ranHere < 1 || remaining < 1) return '';
  const min = Math.ceil(((elapsedMs / ranHere) * remaining) / 60_000 - 0.5);
  if (min < 1) return ', ETA <1 min';
  return min < 120 ? `, ETA ${min} min` : `, ETA ${Math.floor(min / 60)} h ${min % 60} min`;
}

/**
 * "agents 20/24, model requests 16/16, verifying 2/2, 340 of 1,000 done, ETA 41 min": the pools
 * and the run (requests only where agents wait on a model).
 */
export function poolsText(c: SlotCounts, done: number, total: number, eta: string): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const requests = c.requests ? `model requests ${c.requests.busy}/${c.requests.size}, ` : '';
  return `agents ${c.agents.busy}/${c.agents.size}, ${requests}verifying ${c.verifying.busy}/${c.verifying.size}, ${n(done)} of ${n(total)} done${eta}`;
}

/** Without a TTY the pools' line is printed at most this often (and after the first trial). */
const POOLS_EVERY_MS = 30_000;

export function progressPrinter(io: Io, now: () => number = Date.now) {
  const tty = Boolean(io.stderr.isTTY);
  const inFlight = new Set<string>();
  let last = '';
  // A declared provider is named with its model: one run may span providers.
  const modelOf = (s: { provider?: string; model: string }) =>
    s.provider && s.provider !== 'scripted' && s.provider !== 'none'
      ? `${s.provider}/${s.model}`
      : s.model;
  // An LLM agent other than Nanocoder (bare, beside it in `--agent nanocoder,bare`) is named.
  const agentOf = (s: { agent?: string; model: string }) =>
    s.agent && s.agent !== 'nanocoder' && s.model !== 'none' ? `${s.agent} ` : '';
  const describe = (s: {
    task_id?: string;
    agent?: string;
    mode: string;
    attempt: number;
    provider?: string;
    model: string;
  }) =>
    `${s.task_id} ${agentOf(s)}${s.model === 'none' ? '' : `${modelOf(s)} `}${s.mode} #${s.attempt}`;
  let done = 0;
  let total = 0;
  let started = now();
  let before = 0;
  let pools: SlotCounts | undefined;
  let poolsPrinted = -Infinity;
  const statusText = () =>
    pools
      ? poolsText(pools, done, total, etaMinutes(now() - started, done - before, total - done))
      : `running ${inFlight.size} · ${done}/${total} done`;
  const status = (finished = false) => {
    if (!tty) {
      // A log gets the pools now and then, never a line per slot taken.
      if (!finished || !pools || now() - poolsPrinted < POOLS_EVERY_MS) return;
      poolsPrinted = now();
      io.stderr.write(`${statusText()}\n`);
      return;
    }
    last = `  ${statusText()}`;
    io.stderr.write(`\r\x1b[K${last}`);
  };
  return {
    plan(pending: number, planSize: number, runId: string) {
      total = planSize;
      done = planSize - pending;
      before = done;
      started = now();
      io.stderr.write(`nanobench: run ${runId}: ${pending} of ${planSize} trials to run\n`);
    },
    start(spec: TrialSpec) {
      inFlight.add(spec.key);
      status();
    },
    progress(e: ProgressEvent) {
      inFlight.delete(e.trial.trial_key);
      done = e.done;
      const t = e.trial;
      const what = t.status === 'error' ? `ERROR ${t.error}` : `${t.label} ${t.score.toFixed(2)}`;
      const eta = etaText(now() - started, e.done - before, e.total - e.done);
      const line = `[${e.done}/${e.total}] ${describe(t)}: ${what} · ${eta}`;
      io.stderr.write(tty ? `\r\x1b[K${line}\n` : `${line}\n`);
      status(true);
    },
    /** The pools changed: a TTY's live line follows them. */
    slots(c: SlotCounts) {
      pools = c;
      if (tty) status();
    },
    end() {
      if (tty && last) io.stderr.write('\r\x1b[K');
    },
  };
}
