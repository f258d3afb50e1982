// `nanobench selftest`: every derived behaviour on every selected task, in each mode, through
// the real Nanocoder and the real proxy (an ordinary run of the `derived:*` scripted models), and
// each trial's label, score and flags held against what the rules say the behaviour must get
// (expectations.ts). A mismatch is a finding about Nanocoder on a real repository, a verifier or
// rule that misreads real test output, or a harness limit.
import type { Mode } from '../agent/types.js';
import { resolveRunConfig } from '../run/config.js';
import { loadTasks, runSession, type SessionHooks } from '../run/session.js';
import { readRunConfig } from '../run/stored-config.js';
import { isLabel } from '../score/labels.js';
import { RULES } from '../score/rules.js';
import type { Store, TrialRecord } from '../store/store.js';
import { isHarborLoaded, type LoadedTask } from '../task/load.js';
import type { ResolvedTask } from '../task/patches.js';
import { RunPaths } from '../trial/paths.js';
import { UserError } from '../util/errors.js';
import { resolveTasks } from '../workspace/resolve-tasks.js';
import { BEHAVIOURS, type BehaviourName, DERIVED_PREFIX, derivedBehaviour } from './behaviours.js';
import { EXPECTED_FLAGS, type Expectation, expectation } from './expectations.js';
import { isUnbuildable } from './golden-edits.js';
import { derivedSource } from './source.js';

export interface SelftestCase {
  task: string;
  behaviour: BehaviourName;
  mode: Mode;
  /** The label the rules give this behaviour in this mode. */
  expected: string;
  /** The trial's label, `error: stage/code`, or null when the behaviour could not be built. */
  got: string | null;
  /** null when the behaviour could not be built for the task. */
  match: boolean | null;
  expected_score: number;
  expected_flags: string[];
  got_score?: number | null;
  got_flags?: string[];
  /** Why the behaviour cannot be built for this task. */
  not_built?: string;
  /** On a mismatch: the rule behind the label the trial got, and its evidence. */
  rule?: number | null;
  explanation?: string;
  error?: string;
  artifacts_dir?: string | null;
}

export interface SelftestTask {
  task_id: string;
  loaded: LoadedTask<ResolvedTask>;
}

export interface SelftestResult {
  run_id: string | null;
  nanocoder_version: string | null;
  tasks: SelftestTask[];
  cases: SelftestCase[];
  interrupted: boolean;
}

export interface SelftestOptions {
  datasets: string[];
  taskIds?: string[];
  behaviours: BehaviourName[];
  /** hinted | navigation | both */
  mode: string;
  db: string;
  cacheDir?: string;
  mirror?: string;
  concurrency?: string;
  sandbox?: string;
  provision?: string;
  nanocoder?: string;
  node?: string;
  keepWorkspaces?: boolean;
}

/** Which of EXPECTED_FLAGS a trial carries. */
const comparedFlags = (flags: string[]) => EXPECTED_FLAGS.filter((f) => flags.includes(f));

export function compareTrial(
  e: Expectation,
  rec: TrialRecord,
): Pick<
  SelftestCase,
  'got' | 'match' | 'got_score' | 'got_flags' | 'rule' | 'explanation' | 'error' | 'artifacts_dir'
> {
  const scored = rec.status === 'scored';
  const got = scored ? rec.label : `error: ${rec.error_stage}/${rec.error_code}`;
  const flags = comparedFlags(rec.flags);
  const match =
    scored &&
    rec.label === e.label &&
    rec.score === e.score &&
    flags.join(',') === comparedFlags(e.flags).join(',');
  return {
    got,
    match,
    got_score: rec.score,
    got_flags: flags,
    ...(!match && {
      rule: scored && isLabel(rec.label) ? RULES[rec.label].rule : null,
      explanation: scored
        ? String(rec.details.explanation ?? '')
        : rec.error.split('\n')[0].slice(0, 500),
      ...(rec.error && { error: rec.error.slice(0, 2000) }),
      artifacts_dir: rec.artifacts_dir,
    }),
  };
}

/** The tasks a selftest runs: the active PR tasks of the datasets, with their patches. */
async function selftestTasks(
  o: SelftestOptions,
  paths: RunPaths,
  log: (line: string) => void,
): Promise<{ config: ReturnType<typeof resolveRunConfig>; tasks: LoadedTask<ResolvedTask>[] }> {
  const config = resolveRunConfig(o.datasets, {
    agent: 'nanocoder',
    provider: 'scripted',
    model: o.behaviours.map((b) => `${DERIVED_PREFIX}${b}`),
    mode: o.mode,
    runs: '1',
    concurrency: o.concurrency,
    mirror: o.mirror,
    task: o.taskIds,
    sandbox: o.sandbox,
    provision: o.provision,
    nanocoder: o.nanocoder,
    node: o.node,
    keepWorkspaces: o.keepWorkspaces,
  });
  const loaded = loadTasks(config, log).filter((t) => t.task.status.state === 'active');
  const harbor = loaded.filter(isHarborLoaded);
  if (harbor.length)
    log(
      `leaving out ${harbor.length} Harbor task(s): they have no golden patch to derive behaviours from`,
    );
  const pr = loaded.filter((t): t is LoadedTask => !isHarborLoaded(t));
  const tasks = await resolveTasks(pr, { cacheDir: paths.cacheDir, mirrorDir: config.mirror, log });
  return { config, tasks };
}

export async function runSelftest(
  o: SelftestOptions,
  store: Store,
  hooks: Pick<SessionHooks, 'onPlan' | 'onStart' | 'onProgress'> & { log: (l: string) => void },
): Promise<SelftestResult> {
  const paths = new RunPaths(o.db, o.cacheDir);
  const { config, tasks } = await selftestTasks(o, paths, hooks.log);
  // What can be built where: derived here once more than the run's endpoints will (it is cheap),
  // so the plan holds only the cases that can run.
  const source = derivedSource({ cacheDir: paths.cacheDir, mirrorDir: config.mirror });
  const notBuilt = new Map<string, string>();
  for (const lt of tasks) {
    await source.prepare(lt);
    for (const b of o.behaviours) {
      const steps = await source.steps(`${DERIVED_PREFIX}${b}`, lt.task.task_id);
      if (isUnbuildable(steps)) notBuilt.set(`${lt.task.task_id}\0${b}`, steps.unbuildable);
    }
  }
  const buildable = (taskId: string, b: BehaviourName) => !notBuilt.has(`${taskId}\0${b}`);
  let trials: TrialRecord[] = [];
  let runId: string | null = null;
  let nanocoder: string | null = null;
  let interrupted = false;
  const anyCase = tasks.some((t) => o.behaviours.some((b) => buildable(t.task.task_id, b)));
  if (anyCase) {
    const result = await runSession(config, store, paths, {
      ...hooks,
      keepTrial: (spec) => {
        const b = derivedBehaviour(spec.model);
        return b !== undefined && buildable(spec.task.task.task_id, b);
      },
    });
    trials = result.trials;
    runId = result.run.id;
    interrupted = result.interrupted;
    const version = readRunConfig(result.run).agent_info.nanocoder_version;
    nanocoder = typeof version === 'string' ? version : null;
  }
  const cases: SelftestCase[] = [];
  for (const lt of tasks)
    for (const b of o.behaviours)
      for (const mode of config.modes) {
        const e = expectation(b, mode);
        const base = {
          task: lt.task.task_id,
          behaviour: b,
          mode,
          expected: e.label,
          expected_score: e.score,
          expected_flags: e.flags,
        };
        const reason = notBuilt.get(`${lt.task.task_id}\0${b}`);
        if (reason) {
          cases.push({ ...base, got: null, match: null, not_built: reason });
          continue;
        }
        const rec = trials.find(
          (t) =>
            t.task_id === lt.task.task_id && t.model === `${DERIVED_PREFIX}${b}` && t.mode === mode,
        );
        // An interrupted selftest leaves cases without a trial: not a result, not a match.
        if (!rec) continue;
        cases.push({ ...base, ...compareTrial(e, rec) });
      }
  return {
    run_id: runId,
    nanocoder_version: nanocoder,
    tasks: tasks.map((t) => ({ task_id: t.task.task_id, loaded: t })),
    cases,
    interrupted,
  };
}

/** `--behaviour` names, checked. */
export function parseBehaviours(names: string[] | undefined): BehaviourName[] {
  const given = (names ?? []).flatMap((n) => n.split(',')).filter(Boolean);
  if (!given.length) return [...BEHAVIOURS];
  const unknown = given.filter((n) => !(BEHAVIOURS as readonly string[]).includes(n));
  if (unknown.length)
    throw new UserError(
      'BAD_OPTION',
      `--behaviour: no behaviour ${unknown.join(', ')}; the behaviours are ${BEHAVIOURS.join(', ')}`,
    );
  return BEHAVIOURS.filter((b) => given.includes(b));
}

const outcome = (label: string | null, score: number | null | undefined, flags: string[] = []) =>
  label === null
    ? '-'
    : `${label}${typeof score === 'number' ? ` ${score.toFixed(2)}` : ''}${flags.length ? ` [${flags.join(', ')}]` : ''}`;

/** The table: one line per case, the trial's rule and evidence under each mismatch. */
export function renderSelftest(r: SelftestResult): string {
  const rows = r.cases.map((c) => [
    c.task,
    c.behaviour,
    c.mode,
    outcome(c.expected, c.expected_score, c.expected_flags),
    c.not_built ? 'not built' : outcome(c.got, c.got_score, c.got_flags),
    c.match === null ? '-' : c.match ? 'ok' : 'MISMATCH',
  ]);
  const head = ['task', 'behaviour', 'mode', 'expected', 'got', ''];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  const out = [line(head), line(widths.map((w) => '-'.repeat(w)))];
  r.cases.forEach((c, i) => {
    out.push(line(rows[i]));
    if (c.not_built) out.push(`    not built: ${c.not_built}`);
    if (c.match === false) {
      const rule = c.rule !== undefined && c.rule !== null ? `rule ${c.rule}: ` : '';
      out.push(`    ${rule}${c.explanation ?? ''}`);
      if (c.artifacts_dir) out.push(`    artifacts: ${c.artifacts_dir}`);
    }
  });
  const n = (p: (c: SelftestCase) => boolean) => r.cases.filter(p).length;
  out.push(
    '',
    `${r.cases.length} cases: ${n((c) => c.match === true)} match, ${n((c) => c.match === false)} mismatch, ${n((c) => c.match === null)} not built` +
      (r.run_id ? ` (run ${r.run_id}, Nanocoder ${r.nanocoder_version ?? 'unknown'})` : ''),
  );
  return `${out.join('\n')}\n`;
}

/** The cases as JSON: each with task, behaviour, mode, expected, got and match. */
export function selftestJson(r: SelftestResult) {
  return {
    run_id: r.run_id,
    nanocoder_version: r.nanocoder_version,
    cases: r.cases,
  };
}
