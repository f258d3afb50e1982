// Progress on stderr: a live status line on a TTY, plain lines otherwise (CI logs, pipes).

import type { TrialSpec } from '../run/plan.js';
import type { ProgressEvent } from '../run/runner.js';

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

export function progressPrinter(io: Io, now: () => number = Date.now) {
  const tty = Boolean(io.stderr.isTTY);
  const inFlight = new Set<string>();
  let last = '';
  // A declared provider is named with its model: one run may span providers.
  const modelOf = (s: { provider?: string; model: string }) =>
    s.provider && s.provider !== 'scripted' && s.provider !== 'none'
      ? `${s.provider}/${s.model}`
      : s.model;
  const describe = (s: {
    task_id?: string;
    mode: string;
    attempt: number;
    provider?: string;
    model: string;
  }) => `${s.task_id} ${s.model === 'none' ? '' : `${modelOf(s)} `}${s.mode} #${s.attempt}`;
  const status = (done: number, total: number) => {
    if (!tty) return;
    last = `  running ${inFlight.size} · ${done}/${total} done`;
    io.stderr.write(`\r\x1b[K${last}`);
  };
  let done = 0;
  let total = 0;
  let started = now();
  let before = 0;
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
      status(done, total);
    },
    progress(e: ProgressEvent) {
      inFlight.delete(e.trial.trial_key);
      done = e.done;
      const t = e.trial;
      const what = t.status === 'error' ? `ERROR ${t.error}` : `${t.label} ${t.score?.toFixed(2)}`;
      const eta = etaText(now() - started, e.done - before, e.total - e.done);
      const line = `[${e.done}/${e.total}] ${describe(t)}: ${what} · ${eta}`;
      io.stderr.write(tty ? `\r\x1b[K${line}\n` : `${line}\n`);
      status(done, total);
    },
    end() {
      if (tty && last) io.stderr.write('\r\x1b[K');
    },
  };
}
