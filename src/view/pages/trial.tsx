// A trial: what it was asked, what the agent did step by step, what it changed, how the tests
// went, which rule labelled it and why, integrity flags, the proxy's telemetry and the artifacts.
// Details are read through their type (src/trial/details.ts): a key another version of NanoBench
// lacks is left out, one it adds is listed raw at the end.
import type { Child, FC } from 'hono/jsx';
import { INTEGRITY_FLAGS, isIntegrityFlag, STRICT_LABEL } from '../../integrity/flags.js';
import { modelName, plural } from '../../report/format.js';
import type { DetailKey } from '../../trial/details.js';
import type { Artifact, TestRow, TrialPage } from '../data.js';
import type { DiffFile } from '../diff.js';
import type { StepView, ToolCallView } from '../transcript.js';
import { Layout } from './layout.js';
import { runHref, trialHref } from './run.js';

/**
 * Where each details key a trial writes has its place on this page: a section of its own, or
 * the raw list at the end. A key added to TrialDetails without a place here fails the type check.
 */
const DETAIL_PLACES: Record<DetailKey, 'section' | 'raw'> = {
  phase_ms: 'section',
  sandbox: 'section',
  agent_exit_code: 'section',
  agent_ms: 'section',
  agent_meta: 'section',
  usage: 'section',
  proxy: 'section',
  reported_files_changed: 'section',
  explanation: 'section',
  symbol: 'section',
  fail_to_pass: 'section',
  pass_to_pass: 'section',
  suites: 'section',
  verifier_ms: 'section',
  integrity: 'section',
  missing_targets: 'section',
  files_read: 'section',
  teardown_errors: 'raw',
  slot_wait_ms: 'raw',
  agent_started_at: 'raw',
  env_reused: 'raw',
  provision: 'raw',
  environment: 'raw',
  tool_calls: 'raw',
  unreported: 'raw',
  golden_control: 'raw',
  verifier: 'raw',
  scoring_rules_version: 'raw',
  criteria: 'raw',
  task_kind: 'raw',
  reward: 'raw',
  judge: 'raw',
};

/** details keys this page shows in their own sections; the rest is listed raw at the end. */
const SHOWN_DETAILS = new Set(
  Object.entries(DETAIL_PLACES)
    .filter(([, place]) => place === 'section')
    .map(([key]) => key),
);

const json = (x: unknown) => (typeof x === 'string' ? x : JSON.stringify(x, null, 2));
const kb = (n: number) =>
  n >= 1024 * 1024
    ? `${(n / 1024 / 1024).toFixed(1)} MiB`
    : n >= 1024
      ? `${(n / 1024).toFixed(1)} KiB`
      : `${n} B`;

const KV: FC<{ rows: [string, Child | undefined | null][] }> = ({ rows }) => (
  <dl class="kv">
    {rows
      .filter(([, v]) => v !== undefined && v !== null && v !== '')
      .map(([k, v]) => (
        <>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </>
      ))}
  </dl>
);

function Verdict({ p }: { p: TrialPage }) {
  const t = p.trial;
  const d = t.details;
  const strict = d.integrity?.strict;
  const required = new Set(p.required_files?.files ?? []);
  const files = (xs: string[]) =>
    xs.length ? (
      <ul>
        {xs.map((f) => (
          <li>
            <code>{f}</code>
            {required.has(f) ? <span class="badge pass"> required</span> : ''}
          </li>
        ))}
      </ul>
    ) : (
      'none'
    );
  if (t.status === 'error')
    return (
      <section id="verdict">
        <h2>Verdict</h2>
        <p class="error-note">
          <strong>Infra error</strong> (not scored, never inside a rate): stage{' '}
          <code>{t.error_stage ?? '?'}</code>, code <code>{t.error_code ?? '?'}</code>
        </p>
        <pre>{t.error}</pre>
      </section>
    );
  const pass = t.label === 'pass';
  return (
    <section id="verdict">
      <h2>Verdict</h2>
      <p>
        <span class={`badge ${pass ? 'pass' : 'fail'}`} id="label">
          {t.label}
        </span>{' '}
        score <strong>{t.score.toFixed(2)}</strong> · confidence level {t.confidence_level ?? '—'} ·
        tests {t.tests_passed}/{t.tests_total} passed
      </p>
      <KV
        rows={[
          [
            'rule',
            p.rule ? (
              <span id="rule">
                {p.rule.rule === null ? 'audit policy' : `rule ${p.rule.rule} of 8`}: {p.rule.when}
              </span>
            ) : t.label === STRICT_LABEL ? (
              'strict integrity: a flagged trial that earned a score fails'
            ) : null,
          ],
          ['explanation', d.explanation],
          ['symbol', d.symbol !== undefined ? <code>{d.symbol}</code> : null],
          [
            'strict integrity',
            strict
              ? `was ${strict.original_label} (${strict.original_score}): ${strict.reason}`
              : null,
          ],
          ['agent exit', `${t.exit_kind ?? '—'}${t.timed_out ? ' (timed out)' : ''}`],
          ['files changed (git)', files(t.files_changed)],
          [
            'files the agent reported',
            d.reported_files_changed ? files(d.reported_files_changed) : null,
          ],
          [
            'required files',
            p.required_files ? (
              <>
                {p.required_files.files.map((f) => (
                  <code class={t.files_changed.includes(f) ? 'pass' : 'fail'}>{f} </code>
                ))}
                {p.required_files.source === 'dataset' ? (
                  <span class="mark"> (from the dataset on disk)</span>
                ) : (
                  ''
                )}
              </>
            ) : (
              'unknown (not recorded with the run, dataset not at hand)'
            ),
          ],
          ['flags', t.flags.length ? t.flags.join(', ') : 'none'],
        ]}
      />
    </section>
  );
}

const ToolCall: FC<{ c: ToolCallView }> = ({ c }) => (
  <div class={`tool ${c.error ? 'error' : ''}`}>
    <span class="tool-name">{c.name}</span>
    {c.error ? <span class="badge fail"> error</span> : ''}
    <pre class="args">{json(c.arguments)}</pre>
    {c.error ? <pre class="fail">{c.error}</pre> : ''}
    {c.result !== null ? (
      <details>
        <summary>
          result ({c.result.length} characters): {c.result.split('\n')[0].slice(0, 100)}
        </summary>
        <pre>{c.result}</pre>
      </details>
    ) : (
      ''
    )}
  </div>
);

const Step: FC<{ s: StepView }> = ({ s }) => (
  <div class={`step ${s.failure ? 'failed' : ''}`} data-step={s.n}>
    <div class="step-head">
      {s.status === null ? 'tool calls' : `step ${s.n}`}
      {s.source && s.source !== 'upstream' ? ` · ${s.source}` : ''}
      {s.ms !== null ? ` · ${s.ms} ms` : ''}
      {s.usage ? ` · ${s.usage.input} in / ${s.usage.output} out tokens` : ''}
      {s.finish_reason ? ` · finish: ${s.finish_reason}` : ''}
    </div>
    {s.failure ? <pre class="fail">{s.failure}</pre> : ''}
    {s.reasoning ? (
      <details>
        <summary>reasoning</summary>
        <div class="text">{s.reasoning}</div>
      </details>
    ) : (
      ''
    )}
    {s.text ? <div class="text">{s.text}</div> : ''}
    {s.tools.map((c) => (
      <ToolCall c={c} />
    ))}
  </div>
);

function Transcript({ p }: { p: TrialPage }) {
  const x = p.transcript;
  // The agent's own account (details.files_read, from its tool calls) when the trial has one.
  const filesRead = p.trial.details.files_read?.paths;
  return (
    <section id="transcript">
      <h2>Transcript</h2>
      {x.source === 'none' ? (
        <p class="meta">
          No transcript: this agent left neither a cassette nor a Nanocoder report (its output is
          below, under Agent output).
        </p>
      ) : (
        <p class="meta">
          {x.source === 'cassette'
            ? `From the cassette: ${plural(x.steps.length, 'request')} to the model, with the replies, tool calls and results.`
            : "From Nanocoder's report."}
        </p>
      )}
      {x.notes.map((n) => (
        <p class="note">{n}</p>
      ))}
      {x.system ? (
        <details>
          <summary>system prompt ({x.system.length} characters)</summary>
          <pre>{x.system}</pre>
        </details>
      ) : (
        ''
      )}
      {x.steps.map((s) => (
        <Step s={s} />
      ))}
      {x.final_text && x.final_text !== x.steps.at(-1)?.text ? (
        <>
          <h3>Final answer</h3>
          <div class="text" id="final-text">
            {x.final_text}
          </div>
        </>
      ) : (
        ''
      )}
      {x.outcome ? (
        <p class="meta">
          Nanocoder ended with <code>{x.outcome.kind}</code>
          {x.outcome.message ? `: ${x.outcome.message}` : ''}
        </p>
      ) : (
        ''
      )}
      <div class="cols">
        <div>
          <h3>Files read</h3>
          {filesRead ? (
            <p class="meta">recorded with the trial</p>
          ) : (
            <p class="meta">from the read_file calls above</p>
          )}
          <ul id="files-read">
            {(filesRead ?? x.files.read).map((f) => (
              <li>
                <code>{f}</code>
              </li>
            ))}
          </ul>
        </div>
        <div>
          <h3>Files written</h3>
          <p class="meta">from the write_file, string_replace, diff_edit and file_op calls</p>
          <ul id="files-written">
            {x.files.written.map((f) => (
              <li>
                <code>{f}</code>
              </li>
            ))}
          </ul>
        </div>
      </div>
    </section>
  );
}

const DiffView: FC<{ f: DiffFile }> = ({ f }) => (
  <div class={`diff-file ${f.required ? 'required' : ''}`} data-path={f.path}>
    <div class="diff-head">
      <code>{f.from ? `${f.from} → ${f.path}` : f.path}</code>
      {f.required === true ? <span class="badge pass">required file</span> : ''}
      {f.required === false ? <span class="badge">not a required file</span> : ''}
      {f.status !== 'modified' ? <span class="badge">{f.status}</span> : ''}
      <span class="meta">
        <span class="pass">+{f.additions}</span> <span class="fail">−{f.deletions}</span>
      </span>
    </div>
    <pre class="diff-body">
      {f.lines.map((l) => (
        <span class={l.kind}>{l.text || ' '}</span>
      ))}
    </pre>
  </div>
);

function Diff({ p }: { p: TrialPage }) {
  const untouched = (p.required_files?.files ?? []).filter(
    (f) => !(p.diff ?? []).some((d) => d.path === f),
  );
  return (
    <section id="diff">
      <h2>Diff of the workspace</h2>
      {p.diff === null ? (
        <p class="meta">No diff stored (the trial ended before its change was taken).</p>
      ) : p.diff.length === 0 ? (
        <p class="meta">The agent changed nothing.</p>
      ) : (
        <p class="meta">
          {plural(p.diff.length, 'file')} changed (git: the workspace against its baseline, install
          output excluded).
        </p>
      )}
      {untouched.length && p.diff !== null ? (
        <p class="note">
          Required but not changed:{' '}
          {untouched.map((f) => (
            <code>{f} </code>
          ))}
        </p>
      ) : (
        ''
      )}
      {(p.diff ?? []).map((f) => (
        <DiffView f={f} />
      ))}
    </section>
  );
}

/**
 * The line that says why a test failed: the exception line (a Python traceback ends with it, a
 * Node stack starts with it), else the first line.
 */
export function headline(message: string): string {
  const lines = message
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const errors = lines.filter((l) => /^[\w.]*(Error|Exception|Failure)\b.*:|^error: /.test(l));
  const line = errors.at(-1) ?? lines[0] ?? '';
  return line.length > 200 ? `${line.slice(0, 200)}…` : line;
}

const TestTable: FC<{ id: string; title: string; rows: TestRow[] }> = ({ id, title, rows }) => {
  // Failures first: they are what a reader came for; an all-green list starts folded.
  const sorted = [...rows].sort((a, b) => Number(a.passed) - Number(b.passed));
  const failed = rows.filter((r) => !r.passed).length;
  return (
    <details open={failed > 0} id={`${id}-list`}>
      <summary>
        <strong>{title}</strong>{' '}
        <span class={failed ? 'fail' : 'pass'}>
          {rows.length - failed}/{rows.length} passed
        </span>
      </summary>
      <table id={id}>
        <thead>
          <tr>
            <th>test</th>
            <th>outcome</th>
            <th>message</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((r) => (
            <tr>
              <td>
                <code>{r.id}</code>
              </td>
              <td class={r.passed ? 'pass' : 'fail'}>{r.passed ? 'passed' : 'failed'}</td>
              <td>
                {r.message ? (
                  <details>
                    <summary class="reason">{headline(r.message)}</summary>
                    <pre class="msg">{r.message}</pre>
                  </details>
                ) : r.passed ? (
                  ''
                ) : (
                  '—'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
};

function Tests({ p }: { p: TrialPage }) {
  const d = p.trial.details;
  const suites = d.suites ?? [];
  const missing = d.missing_targets;
  const anyMessage = [...(p.tests?.fail_to_pass ?? []), ...(p.tests?.pass_to_pass ?? [])].some(
    (t) => t.message,
  );
  const outputs = p.artifacts.filter((a) => /^tests-.*\.(stdout|stderr)$/.test(a.name));
  return (
    <section id="tests">
      <h2>Tests</h2>
      {suites.length ? (
        <table id="suites-table">
          <thead>
            <tr>
              <th>suite</th>
              <th>status</th>
              <th class="num">exit code</th>
              <th class="num">tests reported</th>
              <th class="num">time</th>
            </tr>
          </thead>
          <tbody>
            {suites.map((s) => (
              <tr>
                <td>{s.name}</td>
                <td class={s.status === 'reported' ? '' : 'warn'}>
                  {s.status}
                  {s.timed_out ? ' (timed out)' : ''}
                  {s.fallback ? ` (fallback: ${json(s.fallback)})` : ''}
                </td>
                <td class="num">{String(s.exit_code)}</td>
                <td class="num">{String(s.tests)}</td>
                <td class="num">{s.ms} ms</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        ''
      )}
      {p.tests ? (
        <>
          <TestTable id="fail-to-pass" title="fail_to_pass" rows={p.tests.fail_to_pass} />
          <TestTable id="pass-to-pass" title="pass_to_pass" rows={p.tests.pass_to_pass} />
          {!anyMessage &&
          p.tests.fail_to_pass.concat(p.tests.pass_to_pass).some((t) => !t.passed) ? (
            <p class="meta">
              Failure messages are not stored with this trial (it predates them): see the suite
              output below.
            </p>
          ) : (
            ''
          )}
        </>
      ) : (
        <p class="meta">The tests did not run (the trial stopped before verification).</p>
      )}
      {missing ? (
        <p class="note">
          {String(missing.count)} target test(s) never reported although their suite ran:{' '}
          {missing.ids.join(', ')}
        </p>
      ) : (
        ''
      )}
      {outputs.length ? (
        <p>
          Suite output:{' '}
          {outputs.map((a) => (
            <>
              <a href={artifactHref(p, a)}>{a.name}</a>{' '}
            </>
          ))}
        </p>
      ) : (
        ''
      )}
    </section>
  );
}

function Integrity({ p }: { p: TrialPage }) {
  const flags = p.trial.flags.filter(isIntegrityFlag);
  const evidence = p.trial.details.integrity;
  return (
    <section id="integrity">
      <h2>Integrity</h2>
      {flags.length ? (
        <ul>
          {flags.map((f) => (
            <li>
              <span class="badge warn">{f}</span> {INTEGRITY_FLAGS[f]}
            </li>
          ))}
        </ul>
      ) : (
        <p class="meta">No integrity flag.</p>
      )}
      {evidence ? (
        <details open={flags.length > 0}>
          <summary>evidence</summary>
          <pre>{json(evidence)}</pre>
        </details>
      ) : (
        ''
      )}
    </section>
  );
}

function Telemetry({ p }: { p: TrialPage }) {
  const d = p.trial.details;
  const proxy = d.proxy;
  const tokens = proxy?.tokens;
  const lat = proxy?.latency_ms;
  const budget = proxy?.budget;
  const usage = d.usage;
  const phases = d.phase_ms;
  const sandbox = d.sandbox;
  const errors = proxy?.errors;
  const other = Object.keys(d).filter((k) => !SHOWN_DETAILS.has(k));
  return (
    <section id="telemetry">
      <h2>Telemetry</h2>
      <div class="cols">
        <div>
          <h3>Provider proxy</h3>
          {proxy ? (
            <KV
              rows={[
                ['model', `${proxy.provider ?? ''}/${proxy.model ?? ''}`],
                ['requests', String(proxy.requests ?? '—')],
                [
                  'sent upstream',
                  proxy.upstream_requests !== undefined ? String(proxy.upstream_requests) : null,
                ],
                ['retries', String(proxy.retries ?? '—')],
                [
                  'tokens in / out / total',
                  tokens ? `${tokens.input} / ${tokens.output} / ${tokens.total}` : '—',
                ],
                ['replies without usage', proxy.usage_missing ? String(proxy.usage_missing) : null],
                [
                  'latency (first byte)',
                  lat ? `median ${lat.ttfb_median} ms · p95 ${lat.ttfb_p95} ms` : null,
                ],
                [
                  'latency (total)',
                  lat
                    ? `median ${lat.total_median} ms · p95 ${lat.total_p95} ms · sum ${lat.total_sum} ms`
                    : null,
                ],
                [
                  'waited for a request slot',
                  lat?.queued_sum ? `${lat.queued_sum} ms in all (not in the latency)` : null,
                ],
                [
                  'temperature sent',
                  proxy.temperature_sent === null
                    ? 'none (the provider refused it: non-deterministic)'
                    : String(proxy.temperature_sent ?? '—'),
                ],
                [
                  'cost',
                  typeof proxy.cost_usd === 'number' ? `$${proxy.cost_usd.toFixed(4)}` : '—',
                ],
                ['errors', errors && Object.keys(errors).length ? json(errors) : 'none'],
                ['last error', proxy.last_error ? json(proxy.last_error) : null],
                [
                  'budget',
                  budget && (budget.tokens !== null || budget.requests !== null)
                    ? json(budget)
                    : null,
                ],
                ['budget exceeded', proxy.budget_exceeded ? json(proxy.budget_exceeded) : null],
                ['replay', proxy.replay ? json(proxy.replay) : null],
              ]}
            />
          ) : (
            <p class="meta">
              No proxy telemetry (not an LLM agent, or the trial never reached it).
            </p>
          )}
          {usage ? (
            <>
              <h3>The agent's own count</h3>
              <KV
                rows={[
                  [
                    'tokens in / out / total',
                    `${usage.inputTokens} / ${usage.outputTokens} / ${usage.totalTokens}`,
                  ],
                ]}
              />
            </>
          ) : (
            ''
          )}
        </div>
        <div>
          <h3>Time</h3>
          <KV
            rows={[
              ['trial', `${(p.trial.duration_ms / 1000).toFixed(2)} s`],
              ...Object.entries(phases ?? {}).map(([k, v]): [string, string] => [
                `phase ${k}`,
                `${v} ms`,
              ]),
              ['started', p.trial.started_at],
              ['finished', p.trial.finished_at],
            ]}
          />
          <h3>Agent</h3>
          <KV
            rows={[
              ['agent', <code>{p.trial.agent}</code>],
              ['exit code', d.agent_exit_code !== undefined ? String(d.agent_exit_code) : null],
              ['agent time', d.agent_ms !== undefined ? `${d.agent_ms} ms` : null],
              ['sandbox', sandbox ? `${sandbox.kind} (${sandbox.containment ?? '?'})` : null],
              ['build', d.agent_meta ? <code>{json(d.agent_meta)}</code> : null],
            ]}
          />
        </div>
      </div>
      {other.length ? (
        <details>
          <summary>other details ({other.join(', ')})</summary>
          <pre>{json(Object.fromEntries(other.map((k) => [k, d[k]])))}</pre>
        </details>
      ) : (
        ''
      )}
    </section>
  );
}

const artifactHref = (p: TrialPage, a: Artifact, download = false) =>
  `/runs/${encodeURIComponent(p.run.id)}/trials/${p.trial.id}/artifacts/${encodeURIComponent(a.name)}${download ? '?download=1' : ''}`;

function Artifacts({ p }: { p: TrialPage }) {
  return (
    <section id="artifacts">
      <h2>Artifacts</h2>
      {p.artifacts.length ? (
        <table id="artifacts-table">
          <tbody>
            {p.artifacts.map((a) => (
              <tr>
                <td>
                  <a href={artifactHref(p, a)}>{a.name}</a>
                </td>
                <td class="num">{kb(a.bytes)}</td>
                <td>
                  <a href={artifactHref(p, a, true)} download={a.name}>
                    download
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p class="meta">
          No artifacts {p.trial.artifacts_dir ? `at ${p.trial.artifacts_dir}` : 'were kept'}.
        </p>
      )}
    </section>
  );
}

export const TrialPageView: FC<{ p: TrialPage }> = ({ p }) => {
  const t = p.trial;
  const f = p.filters;
  const filtered = Object.keys(f).length > 0;
  return (
    <Layout
      kind="trial"
      title={`${t.task_id} · ${t.model} · ${t.mode} #${t.attempt}`}
      crumbs={[
        { href: '/', text: 'Runs' },
        { href: runHref(p.run.id), text: p.run.id },
        ...(filtered ? [{ href: `${runHref(p.run.id, f)}#trials`, text: 'filtered trials' }] : []),
        { text: `trial #${t.id}` },
      ]}
    >
      <h1>
        {t.task_id} · {modelName(t.provider, t.model, p.agent)} · {t.mode} · attempt {t.attempt}
      </h1>
      <nav class="pager" aria-label="trials">
        {p.prev !== null ? (
          <a href={trialHref(p.run.id, p.prev, f)} rel="prev" id="prev">
            ← previous <kbd>k</kbd>
          </a>
        ) : (
          <span class="disabled">← previous</span>
        )}
        <span class="meta">
          trial {p.position.index} of {p.position.of}
          {filtered ? ' (filtered)' : ''}
        </span>
        {p.next !== null ? (
          <a href={trialHref(p.run.id, p.next, f)} rel="next" id="next">
            next <kbd>j</kbd> →
          </a>
        ) : (
          <span class="disabled">next →</span>
        )}
        <a href={`${runHref(p.run.id, f)}#trials`} rel="up" id="up">
          back to the run <kbd>u</kbd>
        </a>
      </nav>
      <nav class="toc" aria-label="sections">
        {[
          ['verdict', 'Verdict'],
          ['prompt', 'Prompt'],
          ['transcript', 'Transcript'],
          ['diff', 'Diff'],
          ['tests', 'Tests'],
          ['integrity', 'Integrity'],
          ['telemetry', 'Telemetry'],
          ['artifacts', 'Artifacts'],
        ].map(([id, text]) => (
          <a href={`#${id}`}>{text}</a>
        ))}
      </nav>
      {p.task ? (
        <p class="meta">
          tier {p.task.tier} · {p.task.languages.join(', ')} · {p.task.domain} ·{' '}
          {p.task.reasoning_category}
        </p>
      ) : (
        ''
      )}
      <Verdict p={p} />
      <section id="prompt">
        <h2>Prompt</h2>
        {p.prompt ? (
          <>
            {p.prompt.source === 'dataset' ? (
              <p class="note">
                Rebuilt from the task in the dataset on disk: this trial did not store its prompt
                (it predates prompt.md), and the task file may have changed since.
              </p>
            ) : (
              ''
            )}
            <pre id="prompt-text">{p.prompt.text}</pre>
          </>
        ) : (
          <p class="meta">
            Not stored with this trial, and the task is not in a dataset on disk to rebuild it.
          </p>
        )}
      </section>
      <Transcript p={p} />
      <Diff p={p} />
      <Tests p={p} />
      <Integrity p={p} />
      <Telemetry p={p} />
      {p.agent_stdout !== null || p.agent_stderr !== null ? (
        <section id="agent-output">
          <h2>Agent output</h2>
          {p.agent_stdout ? (
            <details>
              <summary>stdout ({p.agent_stdout.length} characters)</summary>
              <pre>{p.agent_stdout}</pre>
            </details>
          ) : (
            <p class="meta">stdout: empty</p>
          )}
          {p.agent_stderr ? (
            <details open={t.status === 'error'}>
              <summary>stderr ({p.agent_stderr.length} characters)</summary>
              <pre>{p.agent_stderr}</pre>
            </details>
          ) : (
            <p class="meta">stderr: empty</p>
          )}
        </section>
      ) : (
        ''
      )}
      <Artifacts p={p} />
    </Layout>
  );
};
