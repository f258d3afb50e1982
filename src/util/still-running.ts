// Work that takes minutes with nothing on the screen (an install command, an environment image
// being built) says so now and then: "still installing textkit-001 (2 min)". The command that
// owns stderr turns it on (src/cli/run.ts); libraries and tests print nothing.

let sink: { log: (line: string) => void; everyMs: number } | undefined;

/** Lines of work still running go to `log`, every `everyMs`; undefined: nowhere. */
export function reportStillRunning(log?: (line: string) => void, everyMs = 60_000): void {
  sink = log ? { log, everyMs } : undefined;
}

/** "45 s", "2 min", "1 h 5 min". */
export function minutesText(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  return min < 60 ? `${min} min` : `${Math.floor(min / 60)} h ${min % 60} min`;
}

/** Runs `fn`; while it runs, "still <what> (<time>)" every few seconds where reporting is on. */
export async function stillRunning<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const to = sink;
  if (!to) return fn();
  const started = Date.now();
  const timer = setInterval(
    () => to.log(`still ${what} (${minutesText(Date.now() - started)})`),
    to.everyMs,
  );
  timer.unref();
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}

/** How often: NANOBENCH_STILL_EVERY_SEC seconds (default 60). */
export function stillEveryMs(): number {
  const sec = Number(process.env.NANOBENCH_STILL_EVERY_SEC);
  return Number.isFinite(sec) && sec > 0 ? sec * 1000 : 60_000;
}
