// The calibration report as text: per task, each configuration's solve rate with its Wilson
// interval, the pooled rate, the state and the next step.
import type { Interval } from '../stats/wilson.js';
import type { CalibrationReport, ConfigurationRate, TaskCalibration } from './calibration.js';

const f2 = (x: number | null) => (x === null ? '-' : x.toFixed(2));
const ci = (i: Interval, n: number) => (n ? `[${f2(i.low)}, ${f2(i.high)}]` : '-');

function invalid(c: ConfigurationRate): string {
  const parts = Object.entries(c.invalid).map(([why, n]) => `${n} ${why.replace(/_/g, ' ')}`);
  return parts.join(', ');
}

function task(t: TaskCalibration, width: number): string[] {
  const rule = t.ready
    ? `ready (${t.qualified.length} configurations with enough observations)`
    : `${t.qualified.length} of 3 configurations with enough observations`;
  const lines = [
    `${t.task_id}  ${t.state}  ${t.configurations.length ? rule : 'no observations'}${t.saturated ? '  SATURATED' : ''}`,
  ];
  if (t.configurations.length) {
    const row = (name: string, k: number, n: number, r: number | null, i: Interval, extra = '') =>
      `  ${name.padEnd(width)}  ${`${k}/${n}`.padEnd(7)} ${f2(r).padEnd(5)} ${ci(i, n).padEnd(13)}${extra ? ` invalid: ${extra}` : ''}`.trimEnd();
    lines.push(`  ${'configuration'.padEnd(width)}  solved  rate  95% CI`);
    for (const c of t.configurations)
      lines.push(row(c.configuration, c.passed, c.valid, c.rate, c.ci95, invalid(c)));
    lines.push(row('pooled', t.pooled.passed, t.pooled.valid, t.pooled.rate, t.pooled.ci95));
  }
  for (const p of t.problems) lines.push(`  PROBLEM: ${p}`);
  lines.push(`  next: ${t.next}`, '');
  return lines;
}

export function calibrationText(r: CalibrationReport, title: string): string {
  const width = Math.max(
    'configuration'.length,
    ...r.tasks.flatMap((t) => t.configurations.map((c) => c.configuration.length)),
  );
  const count = (s: string) => r.tasks.filter((t) => t.state === s).length;
  const ready = r.tasks.filter((t) => t.state === 'calibrating' && t.ready).length;
  const lines = [
    `Calibration of ${title}, ${r.mode} mode: ${r.runs} run(s) in ${r.dbs.join(', ')}`,
    `Rule: active after ${r.rule.configurations} materially different configurations (models or Nanocoder builds) have ${r.rule.observations} valid observations each; saturated when the pooled solve rate is >= ${r.rule.saturation}`,
    '',
    ...r.tasks.flatMap((t) => task(t, width)),
    `${count('calibrating')} calibrating (${ready} ready), ${count('active')} active, ${count('retired')} retired`,
  ];
  if (r.saturated.length)
    lines.push(
      `Saturated (they no longer separate models): ${r.saturated.map((id) => `${id}${r.tasks.find((t) => t.task_id === id)?.kept_saturated ? ' (kept)' : ''}`).join(', ')}`,
    );
  if (r.problems.length) lines.push(`${r.problems.length} problem(s) to resolve before a release`);
  return `${lines.join('\n')}\n`;
}
