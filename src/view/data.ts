// What each page of the viewer shows, as data, read from a read-only store. The numbers come from
// the same functions as the reports (buildReport, compareRuns), so the viewer cannot disagree
// with `nanobench report` or `nanobench compare`.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { buildPrompt } from '../agent/prompt.js';
import type { Mode } from '../agent/types.js';
import { AUDIT_AGREEMENT_REQUIRED, applyAudit } from '../audit/policy.js';
import { isIntegrityFlag, STRICT_LABEL } from '../integrity/flags.js';
import { comparedAudit, compareSide } from '../report/compare-input.js';
import { defaultReportInputs } from '../report/inputs.js';
import type { MatrixCell } from '../report/matrix.js';
import { buildReport, type Report } from '../report/model.js';
import type { TaskMeta, TaskMetaMap } from '../report/task-meta.js';
import { readRunConfig } from '../run/stored-config.js';
import { isLabel, type RecordLabel } from '../score/labels.js';
import { RULES } from '../score/rules.js';
import { severalAgents } from '../stats/aggregate.js';
import {
  RULES as COMPARE_RULES,
  type Comparison,
  compareRuns,
  type Rule,
} from '../stats/compare.js';
import { type Interval, wilson } from '../stats/wilson.js';
import type { RunRecord, RunTally, Store, StoredTrial, TrialIndexRow } from '../store/store.js';
import { type LoadedTask, loadDataset } from '../task/load.js';
import { loadManifest } from '../task/manifest.js';
import { ARTIFACT } from '../trial/artifacts.js';
import type { TargetDetail } from '../trial/details.js';
import { type DiffFile, parseDiff } from './diff.js';
import { buildTranscript, type Transcript } from './transcript.js';

// ---- filters ----

export const FILTER_KEYS = [
  'agent',
  'model',
  'task',
  'mode',
  'label',
  'tier',
  'language',
  'flag',
] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type Filters = Partial<Record<FilterKey, string>>;

/** The label filter's value for infra errors (they have no label). */
export const INFRA_ERROR = 'infra_error';
/** The flag filter's value for "any integrity flag" (the report's flagged trials). */
export const ANY_INTEGRITY_FLAG = 'integrity';

export function parseFilters(query: Record<string, string | undefined>): Filters {
  const f: Filters = {};
  for (const k of FILTER_KEYS) if (query[k]) f[k] = query[k];
  return f;
}

/** "?model=...&label=..." in a fixed key order (stable URLs), or "" without filters. */
export function filterQuery(f: Filters): string {
  const q = new URLSearchParams();
  for (const k of FILTER_KEYS) if (f[k]) q.set(k, f[k]!);
  const s = q.toString();
  return s ? `?${s}` : '';
}

export const modelKey = (t: { provider: string; model: string }) => `${t.provider}/${t.model}`;
export const labelOf = (t: { status: 'scored'; label: RecordLabel } | { status: 'error' }) =>
  t.status === 'error' ? INFRA_ERROR : t.label;

export function matches(t: TrialIndexRow, f: Filters, meta: TaskMetaMap): boolean {
  const m = meta[t.task_id];
  if (f.agent && t.agent !== f.agent) return false;
  if (f.model && modelKey(t) !== f.model) return false;
  if (f.task && t.task_id !== f.task) return false;
  if (f.mode && t.mode !== f.mode) return false;
  if (f.label && labelOf(t) !== f.label) return false;
  if (f.tier && String(m?.tier ?? '') !== f.tier) return false;
  if (f.language && !(m?.languages ?? []).includes(f.language)) return false;
  if (f.flag === ANY_INTEGRITY_FLAG)
    return t.flags.some(isIntegrityFlag) || t.label === STRICT_LABEL;
  if (f.flag && !t.flags.includes(f.flag)) return false;
  return true;
}

// ---- runs ----

export interface DatasetInfo {
  path: string;
  /** "name version", from the manifest recorded with the run or, for older runs, on disk now. */
  version: string | null;
  recorded: boolean;
}

function datasetsOf(run: RunRecord): DatasetInfo[] {
  const paths = Array.isArray(run.config.datasets) ? (run.config.datasets as string[]) : [];
  const recorded = readRunConfig(run).dataset_versions;
  return paths.map((path) => {
    const v = recorded?.find((d) => d.path === path);
    if (v) return { path, version: v.version ? `${v.name} ${v.version}` : null, recorded: true };
    try {
      const m = loadManifest(path);
      return { path, version: m ? `${m.name} ${m.version}` : null, recorded: false };
    } catch {
      return { path, version: null, recorded: false };
    }
  });
}

export interface RunRow {
  run: RunRecord;
  /** The run's id as URLs carry it (NAME:RUNID outside the viewer's first database). */
  ref?: string;
  /** The database's name, when the viewer serves several. */
  db?: string;
  agent: string;
  nanocoder: string | null;
  models: string[];
  modes: string[];
  datasets: DatasetInfo[];
  /** The isolation the agents got (bwrap, none-as-nobody, none, podman); null before recorded. */
  sandbox: string | null;
  tally: RunTally;
  ci95: Interval;
}

export function runRows(store: Store): RunRow[] {
  const tallies = new Map(store.runTallies().map((t) => [t.run_id, t]));
  return store
    .listRuns()
    .reverse()
    .map((run) => {
      const c = readRunConfig(run);
      const tally = tallies.get(run.id) ?? {
        run_id: run.id,
        trials: 0,
        scored: 0,
        passed: 0,
        errors: 0,
      };
      return {
        run,
        agent: c.agent,
        nanocoder: c.agent_info.nanocoder_version ? String(c.agent_info.nanocoder_version) : null,
        models: c.models.map((m) => (m.provider === 'none' ? '—' : modelKey(m))),
        modes: c.modes,
        datasets: datasetsOf(run),
        sandbox: c.sandbox_used ?? null,
        tally,
        ci95: wilson(tally.passed, tally.scored),
      };
    });
}

// ---- one run ----

export interface RunPage {
  run: RunRecord;
  report: Report;
  datasets: DatasetInfo[];
  meta: TaskMetaMap;
  filters: Filters;
  options: Record<FilterKey, { value: string; text: string }[]>;
  /** Cells with at least one trial matching the filters (their numbers are the whole cell's). */
  cells: MatrixCell[];
  trials: TrialIndexRow[];
  total_trials: number;
  /** Said when the latest audit collapses the Level-4 labels, as the report CLI says it. */
  audit_note: string | null;
  progress: string;
}

interface RunData {
  report: Report;
  /** Task metadata the report used ({} when unavailable). */
  meta: TaskMetaMap;
  trials: TrialIndexRow[];
  audit_note: string | null;
  /** trials:last id:status when read: a live page asks for changes after this. */
  progress: string;
}

/** Where a run stands, as a page was rendered with it (?since=) and as the live stream checks it. */
export const progressKey = (p: ReturnType<Store['runProgress']>) =>
  `${p.trials}:${p.last_id}:${p.status}`;

/**
 * The report and the trial index of a run, memoised while nothing changed (a live page refetches
 * on every finished trial; a big run's report takes a while).
 */
export class RunCache {
  private readonly entries = new Map<string, { key: string; data: RunData }>();
  constructor(
    private readonly store: Store,
    private readonly cutoffs?: string,
  ) {}

  get(run: RunRecord): RunData {
    const p = this.store.runProgress(run.id);
    const audit = this.store.latestAudit();
    const progress = progressKey(p);
    const key = `${progress}:${audit?.created_at ?? ''}`;
    const hit = this.entries.get(run.id);
    if (hit?.key === key) return hit.data;
    const trials = applyAudit(this.store.trialIndex(run.id), audit?.agreement);
    const inputs = defaultReportInputs(run, this.cutoffs);
    const data: RunData = {
      report: buildReport(run, trials, inputs),
      meta: inputs.tasks.tasks,
      trials,
      progress,
      audit_note:
        audit && audit.agreement < AUDIT_AGREEMENT_REQUIRED
          ? `the latest Level-4 audit agreed on ${(audit.agreement * 100).toFixed(1)}% (< 90%): hallucinated_api and wrong_abstraction_layer are shown as implementation_error`
          : null,
    };
    if (this.entries.size >= 8) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(run.id, { key, data });
    return data;
  }
}

function options(trials: TrialIndexRow[], meta: TaskMetaMap, agent: string): RunPage['options'] {
  const sorted = (xs: Iterable<string>) => [...new Set(xs)].sort();
  const plain = (xs: Iterable<string>) => sorted(xs).map((value) => ({ value, text: value }));
  const flags = sorted(trials.flatMap((t) => t.flags));
  return {
    // A run of one agent needs no agent filter.
    agent: severalAgents(trials) ? plain(trials.map((t) => t.agent)) : [],
    model: sorted(trials.map(modelKey)).map((value) => ({
      value,
      text: value.startsWith('none/') ? `(${agent})` : value,
    })),
    task: plain(trials.map((t) => t.task_id)),
    mode: plain(trials.map((t) => t.mode)),
    label: sorted(trials.map(labelOf)).map((value) => ({
      value,
      text: value === INFRA_ERROR ? 'infra error (not scored)' : value,
    })),
    tier: sorted(trials.map((t) => String(meta[t.task_id]?.tier ?? '')).filter(Boolean)).map(
      (value) => ({ value, text: `tier ${value}` }),
    ),
    language: plain(trials.flatMap((t) => meta[t.task_id]?.languages ?? [])),
    flag: [
      ...(flags.some(isIntegrityFlag)
        ? [{ value: ANY_INTEGRITY_FLAG, text: 'any integrity flag' }]
        : []),
      ...flags.map((value) => ({ value, text: value })),
    ],
  };
}

export function runPage(store: Store, cache: RunCache, runId: string, f: Filters): RunPage | null {
  const run = store.getRun(runId);
  if (!run) return null;
  const { report, meta, trials, audit_note, progress } = cache.get(run);
  const shown = trials.filter((t) => matches(t, f, meta));
  // Matrix cells are per agent (report/matrix.ts): so is what the filters select.
  const cellOf = (c: {
    agent?: string;
    provider: string;
    model: string;
    task_id: string;
    mode: string;
  }) => `${c.agent ?? ''}\0${modelKey(c)}\0${c.task_id}\0${c.mode}`;
  const cellKeys = new Set(shown.map(cellOf));
  return {
    run,
    report,
    datasets: datasetsOf(run),
    meta,
    filters: f,
    options: options(trials, meta, report.run.agent),
    cells: report.matrix.filter((c) => cellKeys.has(cellOf(c))),
    trials: shown,
    total_trials: trials.length,
    audit_note,
    progress,
  };
}

// ---- one trial ----

export interface Artifact {
  name: string;
  bytes: number;
}

const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * The trial's artifacts directory: as stored, or, when the results were moved or copied with the
 * database, the same place under the database's directory.
 */
export function artifactsDir(store: Store, t: StoredTrial): string | null {
  if (!t.artifacts_dir) return null;
  if (existsSync(t.artifacts_dir)) return t.artifacts_dir;
  const moved = join(dirname(store.path), 'artifacts', t.run_id, basename(t.artifacts_dir));
  return existsSync(moved) ? moved : null;
}

export function listArtifacts(dir: string | null): Artifact[] {
  if (!dir) return [];
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile() && SAFE_NAME.test(e.name))
      .map((e) => ({ name: e.name, bytes: statSync(join(dir, e.name)).size }))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  } catch {
    return [];
  }
}

/** The file `name` of the listing (never a path built from the request), or undefined. */
export function artifactPath(dir: string | null, name: string): string | undefined {
  return listArtifacts(dir).some((a) => a.name === name) ? join(dir!, name) : undefined;
}

/** Text of an artifact, at most `max` characters (the page says when it was cut). */
function readText(dir: string | null, name: string, max = 2_000_000): string | null {
  const p = artifactPath(dir, name);
  if (!p) return null;
  const s = readFileSync(p, 'utf8');
  return s.length > max ? `${s.slice(0, max)}\n[… cut at ${max} characters: download the file]` : s;
}

/** Datasets read for prompts and required files of runs that did not record them (by path). */
const datasetCache = new Map<string, LoadedTask[] | null>();

function taskFromDatasets(run: RunRecord, taskId: string): LoadedTask | undefined {
  const paths = Array.isArray(run.config.datasets) ? (run.config.datasets as string[]) : [];
  for (const p of paths) {
    if (!datasetCache.has(p)) {
      try {
        datasetCache.set(p, loadDataset(p));
      } catch {
        datasetCache.set(p, null);
      }
    }
    const hit = datasetCache.get(p)?.find((t) => t.task.task_id === taskId);
    if (hit) return hit;
  }
  return undefined;
}

export interface TestRow {
  id: string;
  passed: boolean;
  message: string | null;
}

export interface TrialPage {
  run: RunRecord;
  trial: StoredTrial;
  agent: string;
  filters: Filters;
  prev: number | null;
  next: number | null;
  position: { index: number; of: number };
  task: TaskMeta | null;
  artifacts: Artifact[];
  prompt: { text: string; source: 'artifact' | 'dataset' } | null;
  transcript: Transcript;
  diff: DiffFile[] | null;
  required_files: { files: string[]; source: 'run' | 'dataset' } | null;
  tests: { fail_to_pass: TestRow[]; pass_to_pass: TestRow[] } | null;
  rule: { rule: number | null; when: string } | null;
  agent_stdout: string | null;
  agent_stderr: string | null;
}

/** Records stored before failure messages were kept have none. */
const testRows = (targets: TargetDetail[] = []): TestRow[] =>
  targets.map((t) => ({ id: t.id, passed: t.passed, message: t.message ?? null }));

export function trialPage(
  store: Store,
  cache: RunCache,
  runId: string,
  trialId: number,
  f: Filters,
): TrialPage | null {
  const run = store.getRun(runId);
  if (!run || !Number.isSafeInteger(trialId)) return null;
  const raw = store.trial(runId, trialId);
  if (!raw) return null;
  const audit = store.latestAudit();
  const [trial] = applyAudit([raw], audit?.agreement);
  const { report, meta, trials } = cache.get(run);
  // Neighbours within the filtered list; a trial outside the filters still gets the whole run's.
  let list = trials.filter((t) => matches(t, f, meta));
  if (!list.some((t) => t.id === trialId)) list = trials;
  const i = list.findIndex((t) => t.id === trialId);
  const dir = artifactsDir(store, trial);
  const loaded = (): LoadedTask | undefined => taskFromDatasets(run, trial.task_id);
  const storedPrompt = readText(dir, ARTIFACT.prompt);
  const fromDataset = storedPrompt === null ? loaded() : undefined;
  const prompt =
    storedPrompt !== null
      ? { text: storedPrompt, source: 'artifact' as const }
      : fromDataset
        ? { text: buildPrompt(fromDataset.task, trial.mode as Mode), source: 'dataset' as const }
        : null;
  const snapshot = meta[trial.task_id]?.required_files;
  const fromDisk = snapshot ? undefined : loaded()?.task.required_files;
  const required_files = snapshot
    ? { files: snapshot, source: 'run' as const }
    : fromDisk
      ? { files: fromDisk, source: 'dataset' as const }
      : null;
  const patch = readText(dir, ARTIFACT.diff);
  const d = trial.details;
  const agentStdout = readText(dir, ARTIFACT.agentStdout);
  const recorded = d.proxy?.cassette;
  const cassetteFile =
    (recorded && existsSync(recorded) ? recorded : undefined) ??
    artifactPath(dir, 'cassette.jsonl');
  return {
    run,
    trial,
    agent: report.run.agent,
    filters: f,
    prev: i > 0 ? list[i - 1].id : null,
    next: i >= 0 && i < list.length - 1 ? list[i + 1].id : null,
    position: { index: i + 1, of: list.length },
    task: meta[trial.task_id] ?? null,
    artifacts: listArtifacts(dir),
    prompt,
    transcript: buildTranscript({ cassette: cassetteFile ?? null, agentStdout }),
    diff: patch === null ? null : parseDiff(patch, required_files?.files ?? null),
    required_files,
    tests:
      'fail_to_pass' in d || 'pass_to_pass' in d
        ? { fail_to_pass: testRows(d.fail_to_pass), pass_to_pass: testRows(d.pass_to_pass) }
        : null,
    rule: isLabel(trial.label) ? RULES[trial.label] : null,
    agent_stdout: agentStdout,
    agent_stderr: readText(dir, ARTIFACT.agentStderr),
  };
}

// ---- compare ----

export type ComparePage =
  | { ok: true; base: RunRecord; candidate: RunRecord; comparison: Comparison }
  | { ok: false; status: 400 | 404; message: string };

export function comparePage(
  find: (ref: string) => { store: Store; run: RunRecord } | undefined,
  baseRef: string,
  candRef: string,
  rule = 'paired',
): ComparePage {
  if (!baseRef || !candRef)
    return { ok: false, status: 400, message: 'pick a base run and a candidate run to compare' };
  if (!(COMPARE_RULES as readonly string[]).includes(rule))
    return {
      ok: false,
      status: 400,
      message: `rule must be ${COMPARE_RULES.join(' or ')}, not "${rule}"`,
    };
  const base = find(baseRef);
  const candidate = find(candRef);
  const missing = [base ? null : baseRef, candidate ? null : candRef].filter(Boolean);
  if (missing.length)
    return {
      ok: false,
      status: 404,
      message: `no run ${missing.map((m) => `"${m}"`).join(' or ')}`,
    };
  if (base!.run.id === candidate!.run.id)
    return {
      ok: false,
      status: 400,
      message: `base and candidate are the same run (${base!.run.id}): pick two different runs`,
    };
  const [b, c] = [
    compareSide(base!.store, base!.run),
    compareSide(candidate!.store, candidate!.run),
  ];
  return {
    ok: true,
    base: base!.run,
    candidate: candidate!.run,
    comparison: compareRuns(b, c, comparedAudit(b, c), { rule: rule as Rule }),
  };
}
