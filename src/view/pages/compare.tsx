// Two runs compared: the same Comparison as `nanobench compare` (compareRuns over the same
// sides), rendered as a page: verdicts per provider/model/mode and overall, caveats, label shifts.
import type { FC } from 'hono/jsx';
import { auditSentence } from '../../audit/policy.js';
import { ciText, modelName, NON_DET_MARK, passedText, pct } from '../../report/format.js';
import type { Comparison, GroupComparison } from '../../stats/compare.js';
import type { RunRecord } from '../../store/store.js';
import { Layout } from './layout.js';
import { runHref } from './run.js';

const verdictClass = (v: string) =>
  v === 'regression' ? 'badge fail' : v === 'improvement' ? 'badge pass' : 'badge';

const Row: FC<{ g: GroupComparison; name: string }> = ({ g, name }) => {
  const mean = (x: number | null) => (x === null ? '—' : x.toFixed(2));
  const delta =
    g.mean_delta === null ? '—' : `${g.mean_delta >= 0 ? '+' : ''}${g.mean_delta.toFixed(2)}`;
  return (
    <tr data-group={`${g.provider}/${g.model} ${g.mode ?? 'all'}`}>
      <td>
        {name}
        {g.non_deterministic ? <span class="mark"> {NON_DET_MARK}</span> : ''}
      </td>
      <td>{g.mode ?? 'all'}</td>
      <td class="num">
        {passedText(g.base)} {ciText(g.base.ci95)}
      </td>
      <td class="num">
        {passedText(g.candidate)} {ciText(g.candidate.ci95)}
      </td>
      <td class="num">
        {mean(g.base.mean_score)} → {mean(g.candidate.mean_score)} ({delta})
      </td>
      <td>
        <span class={`verdict ${verdictClass(g.verdict)}`}>{g.verdict}</span>
      </td>
      <td class="num">
        {g.base.errors} / {g.candidate.errors}
      </td>
    </tr>
  );
};

export const ComparePageView: FC<{ base: RunRecord; candidate: RunRecord; c: Comparison }> = ({
  base,
  candidate,
  c,
}) => {
  const agents =
    c.base.agent === c.candidate.agent ? c.base.agent : `${c.base.agent} → ${c.candidate.agent}`;
  const count = (v: string) => c.groups.filter((g) => g.verdict === v).length;
  const shifts = c.overall.label_shifts.filter((s) => s.base.count !== s.candidate.count);
  const share = (x: number | null) => (x === null ? '—' : pct(x));
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
        Result: overall{' '}
        <span id="overall-verdict" class={verdictClass(c.overall.verdict)}>
          {c.overall.verdict}
        </span>
        ; per model and mode: {count('regression')} regression(s), {count('improvement')}{' '}
        improvement(s), {count('not distinguishable from noise')} not distinguishable from noise. A
        change counts only when the 95% Wilson intervals of the two pass rates do not overlap.
      </p>
      {c.warnings.map((w) => (
        <p class="note">⚠ {w}</p>
      ))}
      <section>
        <table id="compare-table">
          <thead>
            <tr>
              <th>model</th>
              <th>mode</th>
              <th>base passed [95% CI]</th>
              <th>candidate passed [95% CI]</th>
              <th>mean score</th>
              <th>verdict</th>
              <th>infra errors (base / candidate)</th>
            </tr>
          </thead>
          <tbody>
            {c.groups.map((g) => (
              <Row g={g} name={modelName(g.provider, g.model, agents)} />
            ))}
            <Row g={c.overall} name="overall" />
          </tbody>
        </table>
      </section>
      <section>
        <h2>Label shifts (share of scored trials, overall)</h2>
        <p class="meta" id="audit">
          {auditSentence(c.audit)}
        </p>
        {shifts.length ? (
          <table id="shifts-table">
            <thead>
              <tr>
                <th>label</th>
                <th>base</th>
                <th>candidate</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {shifts.map((s) => (
                <tr>
                  <td>{s.label}</td>
                  <td class="num">
                    {share(s.base.share)} ({s.base.count}/{c.overall.base.scored})
                  </td>
                  <td class="num">
                    {share(s.candidate.share)} ({s.candidate.count}/{c.overall.candidate.scored})
                  </td>
                  <td>{s.distinguishable ? <strong>distinguishable</strong> : 'within noise'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p>No label changed its count.</p>
        )}
      </section>
    </Layout>
  );
};
