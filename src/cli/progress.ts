// Progress on stderr: a live status line on a TTY, plain lines otherwise (CI logs, pipes).

import type { TrialSpec } from '../run/plan.js';
import type { ProgressEvent } from '../run/runner.js';

export interface Io {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

export function progressPrinter(io: Io) {
  const tty = Boolean(io.stderr.isTTY);
  const inFlight = new Set<string>();
  let last = '';
  const describe = (s: { task_id?: string; mode: string; attempt: number; model: string }) =>
    `${s.task_id} ${s.model === 'none' ? '' : `${s.model} `}${s.mode} #${s.attempt}`;
  const status = (done: number, total: number) => {
    if (!tty) return;
    last = `  running ${inFlight.size} · ${done}/${total} done`;
    io.stderr.write(`\r\x1b[K${last}`);
  };
  let done = 0;
  let total = 0;
  return {
    plan(pending: number, planSize: number, runId: string) {
      total = planSize;
      done = planSize - pending;
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
      const line = `[${e.done}/${e.total}] ${describe(t)}: ${what}`;
      io.stderr.write(tty ? `\r\x1b[K${line}\n` : `${line}\n`);
      status(done, total);
    },
    end() {
      if (tty && last) io.stderr.write('\r\x1b[K');
    },
  };
}
