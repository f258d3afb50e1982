// The stored runs as a list (`nanobench runs`): what each run was (agent, Nanocoder version,
// providers and models, dataset versions, sandbox) and how far it came (status, trials, pass rate).
// Also the nearest run ids to a mistyped one, for the one line that refuses it.
import { readRunConfig } from '../run/stored-config.js';
import { type Interval, wilson } from '../stats/wilson.js';
import type { RunRecord, RunTally, Store } from '../store/store.js';

export interface RunListRow {
  id: string;
  created_at: string;
  status: RunRecord['status'];
  agent: string;
  nanocoder_version: string | null;
  providers: string[];
  /** "provider/model"; control and command agents have none. */
  models: string[];
  modes: string[];
  /** "name@version" from the run's recorded manifests, else the dataset path. */
  datasets: string[];
  /** The isolation the agent got (bwrap, none-as-nobody, none, container); null before recorded. */
  sandbox: string | null;
  plan_size: number;
  trials: number;
  scored: number;
  passed: number;
  errors: number;
  /** passed / scored over the run's trials (k/n, as the viewer's runs page); null if none scored. */
  pass_rate: number | null;
  ci95: Interval;
}

/** "name@version" per dataset the run ran; the path when it recorded no manifest. */
export function runDatasets(run: RunRecord): string[] {
  const cfg = readRunConfig(run);
  const recorded = cfg.dataset_versions ?? [];
  return cfg.datasets.map((path) => {
    const v = recorded.find((d) => d.path === path);
    return v?.version ? `${v.name}@${v.version}` : path;
  });
}

function rowOf(run: RunRecord, tally: RunTally | undefined): RunListRow {
  const cfg = readRunConfig(run);
  const models = cfg.models.filter((m) => m.provider !== 'none');
  const t = tally ?? { trials: 0, scored: 0, passed: 0, errors: 0 };
  const version = cfg.agent_info.nanocoder_version;
  return {
    id: run.id,
    created_at: run.created_at,
    status: run.status,
    agent: cfg.agent,
    nanocoder_version: version ? String(version) : null,
    providers: [...new Set(models.map((m) => m.provider))],
    models: models.map((m) => `${m.provider}/${m.model}`),
    modes: cfg.modes,
    datasets: runDatasets(run),
    sandbox: cfg.sandbox_used ?? null,
    plan_size: run.plan_size,
    trials: t.trials,
    scored: t.scored,
    passed: t.passed,
    errors: t.errors,
    pass_rate: t.scored ? t.passed / t.scored : null,
    ci95: wilson(t.passed, t.scored),
  };
}

/** Every run in the store, newest first. */
export function listRuns(store: Store): RunListRow[] {
  const tallies = new Map(store.runTallies().map((t) => [t.run_id, t]));
  return store
    .listRuns()
    .reverse()
    .map((run) => rowOf(run, tallies.get(run.id)));
}

/** Edit distance (insertions, deletions, substitutions), one row at a time. */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

/**
 * The stored ids closest to a wanted one: ids it is a prefix or a part of first (a run id typed
 * short), then by edit distance; at most `n`, ties newest first (ids sort by creation time).
 */
export function nearestRunIds(ids: readonly string[], wanted: string, n = 3): string[] {
  const w = wanted.toLowerCase();
  return ids
    .map((id) => ({ id, d: id.toLowerCase().includes(w) ? -1 : editDistance(id.toLowerCase(), w) }))
    .sort((a, b) => a.d - b.d || (a.id < b.id ? 1 : -1))
    .slice(0, n)
    .map((x) => x.id);
}

/** The refusal of an unknown run id, naming the nearest stored ones. */
export function unknownRunMessage(db: string, wanted: string, ids: readonly string[]): string {
  if (!ids.length) return `${db}: no run "${wanted}" (no runs stored yet)`;
  const near = nearestRunIds(ids, wanted);
  return `${db}: no run "${wanted}"; nearest: ${near.join(', ')} (${ids.length} stored; nanobench runs --db ${db} lists them)`;
}
