// What reports say about the tasks' lifecycle (src/calibration/): saturated and calibrating tasks.
import type { Report } from './model.js';

/** Saturated tasks no longer separate models; calibrating ones are observations, not a release. */
export function lifecycleLines(r: Report): { title: string; text: string; items: string[] }[] {
  const out: { title: string; text: string; items: string[] }[] = [];
  const s = r.lifecycle.saturated;
  if (s.recorded.length || s.this_run.length)
    out.push({
      title: 'Saturated tasks',
      text: 'A pooled solve rate of 0.9 or more: these tasks no longer separate models (nanobench calibration).',
      items: [
        ...s.this_run.map(
          (t) =>
            `${t.task_id} (${t.mode}): ${t.passed}/${t.observations} solved in this run across ${t.configurations} configurations`,
        ),
        ...s.recorded.map(
          (t) =>
            `${t.task_id}: recorded saturated at ${(t.pooled_rate * 100).toFixed(0)}%, kept active: ${t.reason}`,
        ),
      ],
    });
  if (r.lifecycle.calibrating.length)
    out.push({
      title: 'Calibrating tasks',
      text: 'These tasks ran while calibrating: their trials are calibration observations; they are not part of a released dataset version.',
      items: r.lifecycle.calibrating,
    });
  return out;
}
