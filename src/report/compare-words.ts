// What a comparison says in words: the headline over groups, the rule that decided it, and the
// smallest change it could have seen. `nanobench compare`, the viewer's compare page and the PR
// comment all use these, so they say the same thing.

import { withAgent } from '../stats/aggregate.js';
import type { Comparison, GroupComparison } from '../stats/compare.js';
import { MIN_PAIRED_TASKS } from '../stats/paired.js';
import { modelName, ppInterval, ppText } from './format.js';

/** Control agents have no model: name their groups by the agent(s). */
export function agentsOf(c: Comparison): string {
  return c.base.agent === c.candidate.agent
    ? c.base.agent
    : `${c.base.agent} → ${c.candidate.agent}`;
}

/** A group's model, after its agent when the comparison is per agent ("bare · p/m"). */
export const groupModel = (g: GroupComparison, agents: string) =>
  withAgent(g.agent, modelName(g.provider, g.model, g.agent ?? agents));

export const groupLabel = (g: GroupComparison, agents: string) =>
  `${groupModel(g, agents)} ${g.mode}`;

/** "0.004", "<0.001". */
/** What the usage columns of a comparison count (compare's note, the viewer's compare page). */
export const USAGE_NOTE =
  'Tokens (in + out) and cost are per trial the provider proxy counted, and per passing trial (all counted usage, infra errors included, over the trials that passed), base → candidate.';

export const pText = (p: number) => (p < 0.001 ? '<0.001' : p.toFixed(3));

/** "≥ 14 pp", or why nothing was detectable. */
export function detectableText(g: GroupComparison): string {
  if (g.paired.verdict === null) return `— (fewer than ${MIN_PAIRED_TASKS} tasks)`;
  return g.paired.detectable === null ? '— (too few tasks)' : `≥ ${pp(g.paired.detectable)}`;
}

const pp = (x: number) => `${Math.round(x * 100)} pp`;

/** The evidence behind one group's verdict, in a few words. */
function evidence(g: GroupComparison): string {
  if (g.verdict_rule === 'overlap')
    return `overlap rule: ${g.base.passed}/${g.base.scored} → ${g.candidate.passed}/${g.candidate.scored} trials`;
  const p = g.paired;
  return `${ppText(p.pass_rate.estimate)} ${ppInterval(p.pass_rate.ci95)}, p ${pText(p.p_holm ?? p.test.p_value)} Holm, ${p.tasks} tasks`;
}

/** "Regressed in 1 of 6 groups: a/b navigation (−14 pp [−22, −6] pp, p 0.012 Holm, 31 tasks)." */
export function headline(c: Comparison): string {
  const n = c.groups.length;
  if (!n) return 'Nothing compared: no group has a task both runs scored (see the warnings).';
  const agents = agentsOf(c);
  const list = (v: string) =>
    c.groups
      .filter((g) => g.verdict === v)
      .map((g) => `${groupLabel(g, agents)} (${evidence(g)})`)
      .join('; ');
  const of = `of ${n} group${n === 1 ? '' : 's'}`;
  const parts: string[] = [];
  if (c.regressions) parts.push(`Regressed in ${c.regressions} ${of}: ${list('regression')}`);
  if (c.improvements)
    parts.push(
      `${parts.length ? 'improved' : 'Improved'} in ${c.improvements} ${of}: ${list('improvement')}`,
    );
  return parts.length
    ? `${parts.join('; ')}.`
    : `No change beyond noise in any ${of} (${n === 1 ? 'the group' : `all ${n}`} not distinguishable from noise).`;
}

/** Which rule decided, over how many groups, and what fell back. */
export function ruleSentence(c: Comparison): string {
  if (c.rule === 'overlap')
    return `Verdicts by the overlap rule (--rule overlap, whitepaper §8.5): a change counts only when the 95% Wilson intervals of the two runs' pooled trials do not overlap. The paired verdict is shown beside it.`;
  const agents = agentsOf(c);
  const unpaired = c.groups
    .filter((g) => g.paired.verdict === null)
    .map((g) => groupLabel(g, agents));
  const why = `fewer than ${MIN_PAIRED_TASKS} scored tasks cannot be paired (even every task moving the same way would not reach p < 0.05)`;
  const beside =
    "The whitepaper's interval-overlap verdict is shown beside it (--rule overlap makes it decide).";
  if (!c.family.tested)
    return `Verdicts by the paired rule (the default), but a group sharing ${why}, so the overlap rule decides ${unpaired.length === 1 ? 'the group' : `all ${unpaired.length} groups`}${unpaired.length ? `: ${unpaired.join(', ')}` : ''}.`;
  const s = (n: number) => (n === 1 ? '' : 's');
  const fallback = unpaired.length
    ? ` A group sharing ${why}; the overlap rule decides ${unpaired.length === 1 ? 'it' : `these ${unpaired.length}`}: ${unpaired.join(', ')}.`
    : '';
  return `Verdicts by the paired rule (the default): each task is compared with itself, by a sign-flip test over the group's shared tasks, Holm-corrected over the ${c.family.tested} group${s(c.family.tested)} tested (family-wise α = ${c.family.alpha}); modes and models are never pooled. ${beside}${fallback}`;
}

/** "This comparison could detect changes of 14 pp or more; smaller ones read as noise." */
export function powerSentence(c: Comparison): string {
  const tested = c.groups.filter((g) => g.paired.verdict !== null);
  const d = tested.map((g) => g.paired.detectable).filter((x): x is number => x !== null);
  const by = tested.length > 1 ? `by group, at 80% power and α/${tested.length}` : 'at 80% power';
  const paired = d.length
    ? `This comparison could detect changes of ${range(d)} or more (${by}); smaller ones read as noise.`
    : '';
  const byOverlap =
    c.rule === 'overlap' ? c.groups : c.groups.filter((g) => g.paired.verdict === null);
  if (!byOverlap.length) return paired;
  const who =
    c.rule === 'overlap'
      ? 'Under the overlap rule'
      : `For the ${byOverlap.length === 1 ? 'group' : `${byOverlap.length} groups`} the overlap rule decides`;
  const gap = `${who}, a verdict needs the pass rate to move by more than about ${range(byOverlap.map((g) => g.overlap.gap))} (the two intervals' half-widths${byOverlap.length > 1 ? ', by group' : ''}).`;
  return paired ? `${paired} ${gap}` : gap;
}

function range(xs: number[]): string {
  const lo = Math.min(...xs);
  const hi = Math.max(...xs);
  return Math.round(lo * 100) === Math.round(hi * 100)
    ? pp(lo)
    : `${pp(lo).replace(' pp', '')}–${pp(hi)}`;
}
