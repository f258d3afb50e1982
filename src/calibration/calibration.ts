// Calibration: whether a task measures something before it counts. A task enters as
// `calibrating`; it may become `active` once three materially different configurations (another
// model, or another Nanocoder build) have three valid observations each on its current content.
// A task whose pooled solve rate is at least 0.9 is saturated: it no longer separates models, and
// stays active only with a recorded reason. Everything here is read from stored runs.
import { readRunConfig, type StoredRunConfig } from '../run/stored-config.js';
import { type Interval, wilson } from '../stats/wilson.js';
import { type RunRecord, Store, type TrialOutcomeRow } from '../store/store.js';
import { contentDigest } from '../task/digest.js';
import type { LoadedTask } from '../task/load.js';
import type { TaskState } from '../task/schema.js';

export const CALIBRATION_RULE = {
  /** Materially different configurations needed... */
  configurations: 3,
  /** ...each with at least this many valid observations of the task. */
  observations: 3,
  /** A pooled solve rate at or above this is saturation. */
  saturation: 0.9,
} as const;

/** Why an observation does not count. */
export type InvalidReason =
  | 'error' // an infrastructure error: nothing was measured
  | 'other_content' // the run graded another version of the task
  | 'content_unknown' // the run recorded no digest for the task
  | 'stale_lists'; // the task's lists named tests the suites never reported

export interface Observation {
  task_id: string;
  configuration: string;
  run_id: string;
  passed: boolean;
  invalid?: InvalidReason;
}

/**
 * What makes a configuration materially different: the agent, its build (Nanocoder's version
 * and commit; not where it is installed) and the model. Control agents (oracle, nop) and
 * command agents observe no model and are no configuration.
 */
export function configurationOf(
  cfg: Pick<StoredRunConfig, 'agent' | 'agent_info'>,
  provider: string,
  model: string,
): string | undefined {
  if (provider === 'none') return undefined;
  const info = cfg.agent_info ?? {};
  const str = (k: string) =>
    typeof info[k] === 'string' || typeof info[k] === 'number' ? String(info[k]) : undefined;
  const version = str('nanocoder_version');
  const commit = str('nanocoder_commit');
  const build = [version, commit?.slice(0, 12)].filter(Boolean).join('+');
  return `${cfg.agent}${build ? `@${build}` : ''} ${provider}/${model}`;
}

export interface StoredRun {
  run: RunRecord;
  trials: TrialOutcomeRow[];
}

/**
 * The observations of `tasks` in stored runs, in one mode. A trial counts when it was scored, on
 * the task's current content (the content digest the run recorded; runs that predate it count
 * when their full digest is the task's current one), with lists the suites could grade.
 */
export function observationsOf(
  runs: StoredRun[],
  tasks: LoadedTask[],
  mode: string,
): Observation[] {
  const current = new Map(
    tasks.map((t) => [t.task.task_id, { content: contentDigest(t.task), full: t.digest }]),
  );
  const out: Observation[] = [];
  for (const { run, trials } of runs) {
    const cfg = readRunConfig(run);
    for (const t of trials) {
      const now = current.get(t.task_id);
      if (!now || t.mode !== mode) continue;
      const configuration = configurationOf(cfg, t.provider, t.model);
      if (!configuration) continue;
      const o: Observation = {
        task_id: t.task_id,
        configuration,
        run_id: run.id,
        passed: t.status === 'scored' && t.label === 'pass',
      };
      const recorded = cfg.task_meta?.[t.task_id]?.content_digest;
      const full = cfg.task_digests[t.task_id];
      if (t.status !== 'scored') o.invalid = 'error';
      else if (recorded !== undefined) {
        if (recorded !== now.content) o.invalid = 'other_content';
      } else if (full === undefined) o.invalid = 'content_unknown';
      else if (full !== now.full) o.invalid = 'other_content';
      if (!o.invalid && t.flags.includes('target_tests_missing')) o.invalid = 'stale_lists';
      out.push(o);
    }
  }
  return out;
}

export interface ConfigurationRate {
  configuration: string;
  passed: number;
  /** Valid observations. */
  valid: number;
  invalid: Partial<Record<InvalidReason, number>>;
  rate: number | null;
  ci95: Interval;
}

export interface TaskCalibration {
  task_id: string;
  state: TaskState;
  configurations: ConfigurationRate[];
  /** Configurations with enough valid observations. */
  qualified: string[];
  /** The rule holds: enough configurations with enough observations each. */
  ready: boolean;
  pooled: { passed: number; valid: number; rate: number | null; ci95: Interval };
  /** Pooled solve rate >= 0.9, judged once the task is calibrated (ready). */
  saturated: boolean;
  /** The recorded reason to keep it active although saturated. */
  kept_saturated?: string;
  /** What stands in the way of a release, with the command that resolves it. */
  problems: string[];
  /** The next step for this task. */
  next: string;
}

const rate = (k: number, n: number) => (n ? k / n : null);

/** The rule applied to per-configuration counts: calibrated (ready), pooled rate, saturated. */
export function judge(configurations: { configuration: string; passed: number; valid: number }[]) {
  const qualified = configurations
    .filter((c) => c.valid >= CALIBRATION_RULE.observations)
    .map((c) => c.configuration);
  const ready = qualified.length >= CALIBRATION_RULE.configurations;
  const passed = configurations.reduce((n, c) => n + c.passed, 0);
  const valid = configurations.reduce((n, c) => n + c.valid, 0);
  const pooled = { passed, valid, rate: rate(passed, valid), ci95: wilson(passed, valid) };
  return {
    qualified,
    ready,
    pooled,
    saturated: ready && (pooled.rate ?? 0) >= CALIBRATION_RULE.saturation,
  };
}

export interface RunSaturation {
  task_id: string;
  mode: string;
  configurations: number;
  passed: number;
  observations: number;
  rate: number;
}

/**
 * Tasks saturated by the rule among one run's own trials (per mode): what a report can say about
 * tasks that no longer separate the models it compares, without any other run.
 */
export function saturatedInRun(
  cfg: Pick<StoredRunConfig, 'agent' | 'agent_info'>,
  trials: Pick<
    TrialOutcomeRow,
    'task_id' | 'provider' | 'model' | 'mode' | 'status' | 'label' | 'flags'
  >[],
): RunSaturation[] {
  const cells = new Map<string, Map<string, { passed: number; valid: number }>>();
  for (const t of trials) {
    const configuration = configurationOf(cfg, t.provider, t.model);
    if (!configuration || t.status !== 'scored' || t.flags.includes('target_tests_missing'))
      continue;
    const key = `${t.task_id}\u0000${t.mode}`;
    const byConfig = cells.get(key) ?? new Map();
    cells.set(key, byConfig);
    const c = byConfig.get(configuration) ?? { passed: 0, valid: 0 };
    byConfig.set(configuration, c);
    c.valid++;
    if (t.label === 'pass') c.passed++;
  }
  const out: RunSaturation[] = [];
  for (const [key, byConfig] of cells) {
    const j = judge([...byConfig].map(([configuration, c]) => ({ configuration, ...c })));
    if (!j.saturated) continue;
    const [task_id, mode] = key.split('\u0000');
    out.push({
      task_id,
      mode,
      configurations: j.qualified.length,
      passed: j.pooled.passed,
      observations: j.pooled.valid,
      rate: j.pooled.rate ?? 0,
    });
  }
  return out.sort((a, b) => (a.task_id + a.mode < b.task_id + b.mode ? -1 : 1));
}

/**
 * The calibration of one task from its observations. `where` completes the commands it suggests
 * (the dataset and results databases the caller read).
 */
export function calibrate(
  lt: LoadedTask,
  observations: Observation[],
  where?: { dataset: string; dbs: string[] },
): TaskCalibration {
  const ds = where ? ` --dataset ${where.dataset}` : '';
  const args = `${ds}${(where?.dbs ?? []).map((d) => ` --db ${d}`).join('')}`;
  const id = lt.task.task_id;
  const mine = observations.filter((o) => o.task_id === id);
  const byConfig = new Map<string, Observation[]>();
  for (const o of mine)
    byConfig.set(o.configuration, [...(byConfig.get(o.configuration) ?? []), o]);
  const configurations = [...byConfig]
    .map(([configuration, obs]) => {
      const valid = obs.filter((o) => !o.invalid);
      const passed = valid.filter((o) => o.passed).length;
      const invalid: ConfigurationRate['invalid'] = {};
      for (const o of obs) if (o.invalid) invalid[o.invalid] = (invalid[o.invalid] ?? 0) + 1;
      return {
        configuration,
        passed,
        valid: valid.length,
        invalid,
        rate: rate(passed, valid.length),
        ci95: wilson(passed, valid.length),
      };
    })
    .sort((a, b) => (a.configuration < b.configuration ? -1 : 1));
  const { qualified, ready, pooled, saturated } = judge(configurations);
  const { passed, valid } = pooled;
  const status = lt.task.status;
  const out: TaskCalibration = {
    task_id: id,
    state: status.state,
    configurations,
    qualified,
    ready,
    pooled,
    saturated,
    ...(status.saturated && { kept_saturated: status.saturated.reason }),
    problems: [],
    next: '',
  };
  const missing = CALIBRATION_RULE.configurations - qualified.length;
  const pct = `${((pooled.rate ?? 0) * 100).toFixed(0)}% (${passed}/${valid})`;
  if (status.state === 'calibrating')
    out.next = !ready
      ? `keep calibrating: ${missing} more configuration(s) with ${CALIBRATION_RULE.observations} valid observations each (nanobench run --calibrating --task ${id} with other models or Nanocoder builds)`
      : saturated
        ? `ready, but saturated at ${pct}: activate only with a reason to keep it (nanobench task activate ${id}${args} --reason "..." --keep-saturated "..."), or retire it`
        : `ready to activate: nanobench task activate ${id}${args} --reason "<approval rationale>"`;
  else if (status.state === 'active') {
    if (status.activated && status.activated.content_digest !== contentDigest(lt.task))
      out.problems.push(
        `${id} changed since it was activated (its content digest differs): it returns to calibrating: nanobench task recalibrate ${id}${ds}`,
      );
    if (saturated && !status.saturated)
      out.problems.push(
        `${id} is saturated (pooled solve rate ${pct} over ${qualified.length} configurations) and active without a recorded reason: keep it with nanobench task keep-saturated ${id}${args} --reason "...", or retire it (nanobench task retire ${id} --reason saturated)`,
      );
    out.next = out.problems.length
      ? 'resolve the problems above before the next release'
      : saturated
        ? `active, saturated and kept: ${status.saturated?.reason}`
        : 'active';
  } else out.next = 'retired';
  return out;
}

/** Every run of the given results databases with its trial outcomes (read-only). */
export function readStoredRuns(dbs: string[]): StoredRun[] {
  const out: StoredRun[] = [];
  for (const db of dbs) {
    const store = Store.open(db, { reader: true });
    try {
      for (const run of store.listRuns()) out.push({ run, trials: store.trialOutcomes(run.id) });
    } finally {
      store.close();
    }
  }
  return out;
}

export interface CalibrationReport {
  mode: string;
  rule: typeof CALIBRATION_RULE;
  dbs: string[];
  runs: number;
  tasks: TaskCalibration[];
  saturated: string[];
  problems: string[];
}

export function calibrationReport(
  tasks: LoadedTask[],
  runs: StoredRun[],
  o: { mode: string; dataset: string; dbs: string[] },
): CalibrationReport {
  const observations = observationsOf(runs, tasks, o.mode);
  const cal = tasks.map((t) => calibrate(t, observations, { dataset: o.dataset, dbs: o.dbs }));
  return {
    mode: o.mode,
    rule: CALIBRATION_RULE,
    dbs: o.dbs,
    runs: runs.length,
    tasks: cal,
    saturated: cal.filter((c) => c.saturated && c.state !== 'retired').map((c) => c.task_id),
    problems: cal.flatMap((c) => c.problems),
  };
}
