// The pull-request comment: a verdict line, the pass rates per provider/model/mode (with the
// base run beside them when there is one), the failure taxonomy and the infra errors. A hidden
// marker lets `ci comment` find and update its own comment instead of adding another.
// The verdict is the interval-overlap rule (src/stats/wilson.ts): a change counts only when the
// two 95% Wilson intervals do not overlap, on the tasks both runs ran.
import { type Interval, type Verdict, verdict, wilson } from '../stats/wilson.js';
import type { RunRecord, TrialRecord } from '../store/store.js';

export const COMMENT_MARKER = '<!-- nanobench -->';

export interface CommentSide {
  run: RunRecord;
  trials: TrialRecord[];
}

interface Rate {
  passed: number;
  scored: number;
  errors: number;
  mean: number | null;
  ci: Interval;
}

interface Row {
  group: string;
  candidate: Rate;
  base?: Rate;
  verdict?: Verdict;
}

function rate(ts: TrialRecord[]): Rate {
  const scored = ts.filter((t) => t.status === 'scored');
  const passed = scored.filter((t) => t.label === 'pass').length;
  return {
    passed,
    scored: scored.length,
    errors: ts.length - scored.length,
    mean: scored.length ? scored.reduce((a, t) => a + (t.score ?? 0), 0) / scored.length : null,
    ci: wilson(passed, scored.length),
  };
}

// Not the agent's name: base and PR differ in the build, not in what the group means.
const groupOf = (t: TrialRecord) =>
  `${t.provider === 'none' ? '(no model)' : `${t.provider}/${t.model}`} · ${t.mode}`;

function groupBy(ts: TrialRecord[]): Map<string, TrialRecord[]> {
  const m = new Map<string, TrialRecord[]>();
  for (const t of ts) m.set(groupOf(t), [...(m.get(groupOf(t)) ?? []), t]);
  return new Map([...m].sort((a, b) => a[0].localeCompare(b[0])));
}

/** Rows per group and overall; with a base, only tasks present in both runs are compared. */
function rows(allCand: TrialRecord[], allBase?: TrialRecord[]): Row[] {
  let cand = allCand;
  let base = allBase;
  if (allBase) {
    const inBase = new Set(allBase.map((t) => t.task_id));
    const inCand = new Set(allCand.map((t) => t.task_id));
    cand = allCand.filter((t) => inBase.has(t.task_id));
    base = allBase.filter((t) => inCand.has(t.task_id));
  }
  const baseGroups = groupBy(base ?? []);
  const row = (group: string, c: TrialRecord[], b?: TrialRecord[]): Row => {
    const r: Row = { group, candidate: rate(c) };
    if (b) {
      r.base = rate(b);
      r.verdict = verdict(r.base.ci, r.candidate.ci);
    }
    return r;
  };
  const out = [...groupBy(cand)].map(([g, c]) =>
    row(g, c, base ? (baseGroups.get(g) ?? []) : undefined),
  );
  out.push(row('**overall**', cand, base));
  return out;
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').replace(/[|`]/g, "'").slice(0, 200);
const pct = (x: number) => `${Math.round(x * 100)}%`;
const fmtRate = (r: Rate) =>
  `${r.passed}/${r.scored} (${r.scored ? pct(r.passed / r.scored) : '—'}), CI ${pct(r.ci.low)}–${pct(r.ci.high)}`;
const fmtMean = (r: Rate) => (r.mean === null ? '—' : r.mean.toFixed(2));

function headline(rs: Row[], hasBase: boolean): string {
  if (!hasBase) return 'no baseline given: pass rates only, no regression verdict';
  const vs = rs.map((r) => r.verdict);
  if (vs.includes('regression')) return '❌ **regression** (intervals do not overlap)';
  if (vs.includes('improvement')) return '✅ **improvement** (intervals do not overlap)';
  return '➖ **no change beyond noise**';
}

function buildOf(run: RunRecord): string {
  const info = ((run.config as Record<string, unknown>).agent_info ?? {}) as Record<
    string,
    unknown
  >;
  const v = info.nanocoder_version ? `Nanocoder ${info.nanocoder_version}` : '';
  const c = info.nanocoder_commit ? ` @ ${String(info.nanocoder_commit).slice(0, 10)}` : '';
  return v ? `${v}${c}` : String((run.config as Record<string, unknown>).agent ?? '');
}

function taxonomy(cand: TrialRecord[], base?: TrialRecord[]): string[] {
  const count = (ts: TrialRecord[]) => {
    const m = new Map<string, number>();
    for (const t of ts) {
      const label = t.status === 'error' ? 'infra error (not scored)' : (t.label ?? '?');
      m.set(label, (m.get(label) ?? 0) + 1);
    }
    return m;
  };
  const c = count(cand);
  const b = base ? count(base) : undefined;
  const labels = [...new Set([...c.keys(), ...(b?.keys() ?? [])])].sort(
    (x, y) => (c.get(y) ?? 0) - (c.get(x) ?? 0) || x.localeCompare(y),
  );
  const lines = b
    ? ['| label | base | this PR |', '|---|---|---|']
    : ['| label | trials |', '|---|---|'];
  for (const l of labels)
    lines.push(
      b ? `| ${l} | ${b.get(l) ?? 0} | ${c.get(l) ?? 0} |` : `| ${l} | ${c.get(l) ?? 0} |`,
    );
  return lines;
}

export function commentBody(candidate: CommentSide, base?: CommentSide): string {
  const rs = rows(candidate.trials, base?.trials);
  const lines = [
    COMMENT_MARKER,
    '### NanoBench',
    '',
    `Verdict: ${headline(rs, Boolean(base))}`,
    '',
    base
      ? `This PR: run \`${candidate.run.id}\` (${buildOf(candidate.run)}) · base: run \`${base.run.id}\` (${buildOf(base.run)})`
      : `Run \`${candidate.run.id}\` (${buildOf(candidate.run)})`,
    '',
  ];
  if (base) {
    lines.push('| model · mode | base passed | this PR passed | mean (base → PR) | verdict |');
    lines.push('|---|---|---|---|---|');
    for (const r of rs)
      lines.push(
        `| ${r.group} | ${fmtRate(r.base!)} | ${fmtRate(r.candidate)} | ${fmtMean(r.base!)} → ${fmtMean(r.candidate)} | ${r.verdict} |`,
      );
  } else {
    lines.push('| model · mode | passed | mean score | infra errors |', '|---|---|---|---|');
    for (const r of rs)
      lines.push(
        `| ${r.group} | ${fmtRate(r.candidate)} | ${fmtMean(r.candidate)} | ${r.candidate.errors} |`,
      );
  }
  lines.push('', '<details><summary>Failure taxonomy</summary>', '');
  lines.push(...taxonomy(candidate.trials, base?.trials), '', '</details>', '');
  const errors = candidate.trials.filter((t) => t.status === 'error');
  if (errors.length)
    lines.push(
      `${errors.length} trial(s) hit an infrastructure error and are not scored (e.g. ${errors[0].task_id}: ${oneLine(errors[0].error ?? '')}).`,
      '',
    );
  lines.push(
    '<sub>Pass rates with 95% Wilson intervals; a verdict needs non-overlapping intervals. Produced by `nanobench ci comment`.</sub>',
    '',
  );
  return lines.join('\n');
}
