// The navigation delta (whitepaper §8): hinted minus navigation pass rate, per model, on the
// tasks that model ran in both modes. Positive: the model loses that much when it must find the
// files itself. The interval on the delta is Newcombe's; calling it a finding follows the overlap
// rule on the two Wilson intervals, like every other comparison in NanoBench.
import {
  getOrInit,
  joinKey,
  type Rate,
  splitKey,
  Tally,
  type TrialOutcome,
} from '../stats/aggregate.js';
import { differenceInterval, type Interval, overlaps } from '../stats/wilson.js';

export interface NavigationDelta {
  /** The agent, when the trials name it (a run of several agents has a delta per agent). */
  agent?: string;
  provider: string;
  model: string;
  /** Tasks run in both modes (the paired set the delta is computed on). */
  tasks: number;
  hinted: Rate;
  navigation: Rate;
  /** hinted pass rate - navigation pass rate, with its 95% interval. */
  delta: Interval & { estimate: number | null };
  mean_delta: number | null;
  /** The two Wilson intervals do not overlap. */
  distinguishable: boolean;
}

export function navigationDeltas(trials: TrialOutcome[]): NavigationDelta[] {
  // model -> task -> modes present
  const modes = new Map<string, Map<string, Set<string>>>();
  for (const t of trials) {
    const m = joinKey(t.provider, t.model, t.agent ?? '');
    const tasks = getOrInit(modes, m, () => new Map<string, Set<string>>());
    getOrInit(tasks, t.task_id, () => new Set<string>()).add(t.mode);
  }
  const tallies = new Map<string, { hinted: Tally; navigation: Tally; tasks: number }>();
  for (const [m, tasks] of modes) {
    const both = [...tasks.values()].filter((s) => s.has('hinted') && s.has('navigation')).length;
    if (both) tallies.set(m, { hinted: new Tally(), navigation: new Tally(), tasks: both });
  }
  if (tallies.size === 0) return [];
  for (const t of trials) {
    const m = joinKey(t.provider, t.model, t.agent ?? '');
    const g = tallies.get(m);
    const s = modes.get(m)?.get(t.task_id);
    if (!g || !s || !(s.has('hinted') && s.has('navigation'))) continue;
    if (t.mode === 'hinted') g.hinted.add(t);
    else if (t.mode === 'navigation') g.navigation.add(t);
  }
  return [...tallies]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([m, g]) => {
      const [provider, model, agent] = splitKey(m);
      const h = g.hinted.rate();
      const n = g.navigation.rate();
      return {
        ...(agent && { agent }),
        provider,
        model,
        tasks: g.tasks,
        hinted: h,
        navigation: n,
        delta: differenceInterval(h.passed, h.scored, n.passed, n.scored),
        mean_delta:
          h.mean_score !== null && n.mean_score !== null ? h.mean_score - n.mean_score : null,
        distinguishable: !overlaps(h.ci95, n.ci95),
      };
    });
}
