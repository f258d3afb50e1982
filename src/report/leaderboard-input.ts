// What the leaderboard reads: the runs of one dataset version in one or more results databases,
// their outcomes in one mode with the stricter of the databases' Level-4 audits applied (labels
// read alike across databases, as compare does), and how many tasks the dataset version has.
import { applyAudit, stricterAudit } from '../audit/policy.js';
import { readRunConfig } from '../run/stored-config.js';
import type { AuditRecord, RunRecord } from '../store/store.js';
import { Store } from '../store/store.js';
import { loadManifest } from '../task/manifest.js';
import { UserError } from '../util/errors.js';
import { buildLeaderboard, type Leaderboard, type LeaderboardEntry } from './leaderboard.js';
import { runDatasets } from './run-list.js';

export const LEADERBOARD_MODES = ['hinted', 'navigation'] as const;

export interface LeaderboardQuery {
  dbs: string[];
  /** NAME@VERSION (a dataset without a manifest: its path); default: the newest run's. */
  dataset?: string;
  mode?: string;
}

export interface LeaderboardResult {
  board: Leaderboard;
  /** Lines for stderr: what was chosen by default, what is missing. */
  notes: string[];
  /** Every dataset version the stores hold runs of. */
  datasets: string[];
}

interface StoredRun {
  db: string;
  run: RunRecord;
  datasets: string[];
  store: Store;
}

/** The dataset of the newest run that stored a trial. */
function newestDataset(runs: StoredRun[], tallies: Map<StoredRun, number>): string | undefined {
  const withTrials = runs.filter((r) => (tallies.get(r) ?? 0) > 0);
  const newest = withTrials.sort((a, b) => (a.run.created_at < b.run.created_at ? 1 : -1))[0];
  return newest?.datasets[0];
}

/** The task ids of the dataset version from its manifest on disk, when it is that version. */
function manifestTasks(runs: StoredRun[], dataset: string): string[] | undefined {
  for (const r of runs)
    for (const v of readRunConfig(r.run).dataset_versions ?? []) {
      if (!v.version || `${v.name}@${v.version}` !== dataset) continue;
      try {
        const m = loadManifest(v.path);
        if (m && m.name === v.name && m.version === v.version) return m.tasks.map((t) => t.task_id);
      } catch {
        // a damaged manifest on disk: fall back to what the runs planned
      }
    }
  return undefined;
}

function plannedTasks(runs: StoredRun[]): string[] {
  return [...new Set(runs.flatMap((r) => Object.keys(readRunConfig(r.run).task_meta ?? {})))];
}

/** Open the stores (read-only commands' way), build the leaderboard, close them. */
export function loadLeaderboard(q: LeaderboardQuery): LeaderboardResult {
  const stores: { db: string; store: Store }[] = [];
  try {
    for (const db of q.dbs) stores.push({ db, store: Store.open(db, { reader: true }) });
    return leaderboardOf(stores, q);
  } finally {
    for (const { store } of stores) store.close();
  }
}

/** Choose the dataset version and mode in open stores, and build the leaderboard. */
export function leaderboardOf(
  stores: { db: string; store: Store }[],
  q: Omit<LeaderboardQuery, 'dbs'>,
): LeaderboardResult {
  const mode = q.mode ?? 'hinted';
  if (!(LEADERBOARD_MODES as readonly string[]).includes(mode))
    throw new UserError('BAD_OPTION', `--mode must be hinted or navigation, got "${mode}"`);
  const dbs = stores.map((s) => s.db);
  const runs: StoredRun[] = stores.flatMap(({ db, store }) =>
    store.listRuns().map((run) => ({ db, run, datasets: runDatasets(run), store })),
  );
  const tallies = new Map<StoredRun, number>();
  const counts = new Map(
    stores.map(({ store }) => [
      store,
      new Map(store.runTallies().map((t) => [t.run_id, t.trials])),
    ]),
  );
  for (const r of runs) tallies.set(r, counts.get(r.store)?.get(r.run.id) ?? 0);
  const available = [...new Set(runs.flatMap((r) => r.datasets))].sort();
  if (!available.length)
    throw new UserError(
      'NO_RUN',
      runs.length
        ? `${dbs.join(', ')}: none of the ${runs.length} stored runs names its dataset, so none can be ranked`
        : `${dbs.join(', ')}: no runs stored yet`,
    );
  const dataset = q.dataset ?? newestDataset(runs, tallies) ?? available[0];
  if (!available.includes(dataset))
    throw new UserError(
      'BAD_OPTION',
      `--dataset: no stored run of "${dataset}" in ${dbs.join(', ')}; stored: ${available.join(', ')}`,
    );
  const chosen = runs.filter((r) => r.datasets.includes(dataset));
  const fromManifest = manifestTasks(chosen, dataset);
  const taskIds = fromManifest ? new Set(fromManifest) : undefined;
  const audit = stores
    .map(({ store }) => store.latestAudit())
    .reduce<AuditRecord | undefined>((a, b) => stricterAudit(a, b ?? undefined), undefined);
  const entries: LeaderboardEntry[] = chosen.map((r) => {
    const cfg = readRunConfig(r.run);
    const version = cfg.agent_info.nanocoder_version;
    const trials = applyAudit(r.store.trialOutcomes(r.run.id), audit?.agreement).filter(
      (t) => t.mode === mode && (!taskIds || taskIds.has(t.task_id)),
    );
    return {
      db: r.db,
      run_id: r.run.id,
      agent: cfg.agent,
      nanocoder_version: version ? String(version) : null,
      trials,
    };
  });
  const planned = plannedTasks(chosen);
  const board = buildLeaderboard(
    entries.filter((e) => e.trials.length > 0),
    {
      dataset,
      mode,
      datasetTasks: fromManifest?.length ?? (planned.length || null),
      datasetTasksSource: fromManifest ? 'manifest' : planned.length ? 'planned' : null,
    },
  );
  const notes: string[] = [];
  const others = available.filter((d) => d !== dataset);
  if (!q.dataset && others.length)
    notes.push(
      `leaderboard over ${dataset}; also stored: ${others.join(', ')} (--dataset picks one)`,
    );
  if (!board.rows.length)
    notes.push(`no ${mode} trials stored for ${dataset} (--mode picks the mode)`);
  return { board, notes, datasets: available };
}
