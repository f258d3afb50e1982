// Two runs compared: the same Comparison as `nanobench compare` (compareRuns over the same
// sides), rendered as a page: the statement over groups, the rule and what it could detect,
// caveats, one row per provider/model/mode with the paired verdict beside the overlap verdict,
// and the label shifts. ?rule=overlap makes the whitepaper's rule decide, as --rule does.
import type { FC } from 'hono/jsx';
import { auditSentence } from '../../audit/policy.js';
import {
  agentsOf,
  detectableText,
  groupModel,
  headline,
  powerSentence,
  pText,
  ruleSentence,
  USAGE_NOTE,
} from '../../report/compare-words.js';
import {
  ciText,
  costChangeText,
  NON_DET_MARK,
  passedText,
  pct,
  ppInterval,
  ppText,
  tokensChangeText,
} from '../../report/format.js';
import { type Comparison, type GroupComparison, groupName } from '../../stats/compare.js';
import type { TaskWeightedRate } from '../../stats/tasks.js';
import type { RunRecord } from '../../store/store.js';
import { Layout } from './layout.js';
import { runHref } from './run.js';

const verdictClass = (v: string | null) =>
  v === 'regression' ? 'badge fail' : v === 'improvement' ? 'badge pass' : 'badge';

const rateText = (r: TaskWeightedRate) =>
  r.pass_rate === null ? '—' : `${pct(r.pass_rate)} [${ciText(r.ci95)}]`;

/**
 * The compare table's headers, in the order of Row's cells, as `nanobench compare` names them;
 * true: a number column (right-aligned, its header too).
 */
export const COLUMNS: [string, boolean][] = [
  ['model', false],
  ['mode', false],
  ['tasks', true],
  ['base, each task once [95% CI]', true],
  ['candidate [95% CI]', true],
  ['Δ pass rate, paired [95% CI]', true],
  ['tokens / trial (Δ)', true],
  ['cost / trial (Δ)', true],
  ['cost / solved trial (Δ)', true],
  ['p (Holm)', true],
  ['paired', false],
  ['trials passed, base → candidate [95% CI]', true],
  ['overlap', false],
  ['verdict (rule)', false],
  ['detectable', true],
  ['mean score', true],
  ['infra errors (base / candidate)', true],
];

const Row: FC<{ g: GroupComparison; name: string }> = ({ g, name }) => {
  const p = g.paired;
  const mean = (x: number | null) => (x === null ? '—' : x.toFixed(2));
  return (
    <tr data-group={groupName(g)} data-rule={g.verdict_rule}>
      <td>
        {name}
        {g.non_deterministic ? <span class="mark"> {NON_DET_MARK}</span> : ''}
      </td>
      <td>{g.mode}</td>
      <td class="num">{p.tasks}</td>
      <td class="num">{rateText(g.base_tasks)}</td>
      <td class="num">{rateText(g.candidate_tasks)}</td>
      <td class="num">
        {p.tasks ? `${ppText(p.pass_rate.estimate)} ${ppInterval(p.pass_rate.ci95)}` : '—'}
      </td>
      <td class="num usage">{tokensChangeText(g.usage)}</td>
      <td class="num usage">{costChangeText(g.usage, 'trial')}</td>
      <td class="num usage">{costChangeText(g.usage, 'solved')}</td>
      <td class="num">{p.p_holm === null ? '—' : pText(p.p_holm)}</td>
      <td>
        <span class={`paired-verdict ${verdictClass(p.verdict)}`}>
          {p.verdict ?? 'cannot pair'}
        </span>
      </td>
      <td class="num">
        {passedText(g.base)} {ciText(g.base.ci95)} → {passedText(g.candidate)}{' '}
        {ciText(g.candidate.ci95)}
      </td>
      <td>
        <span class={`overlap-verdict ${verdictClass(g.overlap.verdict)}`}>
          {g.overlap.verdict}
        </span>
      </td>
      <td>
        <span class={`verdict ${verdictClass(g.verdict)}`}>{g.verdict}</span> ({g.verdict_rule})
      </td>
      <td class="num">{detectableText(g)}</td>
      <td class="num">
        {mean(g.base_tasks.mean_score)} → {mean(g.candidate_tasks.mean_score)}
      </td>
      <td class="num">
        {g.base.errors} / {g.candidate.errors}
      </td>
    </tr>
  );
};

const Shifts: FC<{ c: Comparison }> = ({ c }) => {
  const shifts = c.label_shifts.filter((s) => s.base.count !== s.candidate.count);
  const share = (x: number | null) => (x === null ? '—' : pct(x));
  if (!shifts.length) return <p>No label changed its count.</p>;
  return (
    <table id="shifts-table">
      <thead>
        <tr>
          <th>label</th>
          <th class="num">base</th>
          <th class="num">candidate</th>
          <th />
        </tr>
      </thead>
      <tbody>
        {shifts.map((s) => (
          <tr>
            <td>{s.label}</td>
            <td class="num">
              {share(s.base.share)} ({s.base.count}/{c.label_scored.base})
            </td>
            <td class="num">
              {share(s.candidate.share)} ({s.candidate.count}/{c.label_scored.candidate})
            </td>
            <td>{s.distinguishable ? <strong>distinguishable</strong> : 'within noise'}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
};

export const ComparePageView: FC<{ base: RunRecord; candidate: RunRecord; c: Comparison }> = ({
  base,
  candidate,
  c,
}) => {
  const agents = agentsOf(c);
  const other = c.rule === 'paired' ? 'overlap' : 'paired';
  const otherHref = `/compare?base=${encodeURIComponent(base.id)}&candidate=${encodeURIComponent(candidate.id)}&rule=${other}`;
  const found = c.regressions ? 'regression' : c.improvements ? 'improvement' : null;
  return (
    <Layout
      kind="compare"
      title={`Compare ${base.id} → ${candidate.id}`}
      crumbs={[{ href: '/', text: 'Runs' }, { text: 'compare' }]}
    >
      <h1>
        Compare <a href={runHref(base.id)}>{base.id}</a> (base) →{' '}
        <a href={runHref(candidate.id)}>{candidate.id}</a> (candidate)
      </h1>
      <p id="compare-result">
        <span id="headline-verdict" class={verdictClass(found)}>
          {found ?? 'no change beyond noise'}
        </span>{' '}
        {headline(c)}
      </p>
      <p class="meta" id="compare-rule">
        {ruleSentence(c)} <a href={otherHref}>Decide by the {other} rule instead</a>.
      </p>
      {c.groups.length ? (
        <p class="meta" id="compare-power">
          {powerSentence(c)}
        </p>
      ) : (
        ''
      )}
      {c.warnings.map((w) => (
        <p class="note">⚠ {w}</p>
      ))}
      <section>
        <table id="compare-table">
          <thead>
            <tr>
              {COLUMNS.map(([h, num]) => (
                <th class={num ? 'num' : undefined}>{h}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {c.groups.map((g) => (
              <Row g={g} name={groupModel(g, agents)} />
            ))}
          </tbody>
        </table>
        <p class="meta" id="usage-note">
          {USAGE_NOTE}
        </p>
      </section>
      <section>
        <h2>Label shifts (share of scored trials, all groups together)</h2>
        <p class="meta" id="audit">
          Descriptive, not a verdict. {auditSentence(c.audit)}
        </p>
        <Shifts c={c} />
      </section>
    </Layout>
  );
};
