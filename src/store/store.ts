// The results store: one SQLite file in WAL mode. Each finished trial is one transaction, so a
// crash loses at most the trials still in flight; artifacts live as files next to the database.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { UserError } from '../util/errors.js';
import { MIGRATIONS } from './migrations.js';

export interface TrialRecord {
  run_id: string;
  trial_key: string;
  task_id: string;
  agent: string;
  provider: string;
  model: string;
  mode: string;
  attempt: number;
  status: 'scored' | 'error';
  score: number | null;
  label: string | null;
  confidence_level: string | null;
  tests_passed: number;
  tests_failed: number;
  tests_total: number;
  files_changed: string[];
  flags: string[];
  exit_kind: string | null;
  timed_out: boolean;
  error: string | null;
  /** Where and what, for status "error" (src/run/trial-phases.ts STAGES; codes per stage). */
  error_stage: string | null;
  error_code: string | null;
  details: Record<string, unknown>;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  artifacts_dir: string | null;
}

export interface RunRecord {
  id: string;
  created_at: string;
  finished_at: string | null;
  status: 'running' | 'finished' | 'interrupted';
  config: Record<string, unknown>;
  plan_size: number;
}

const JSON_COLS = ['files_changed', 'flags', 'details'] as const;

/** Most stored JSON values are empty: skip the parser for those. */
const parseJson = (s: string): unknown => (s === '[]' ? [] : s === '{}' ? {} : JSON.parse(s));

export type TrialOutcomeRow = Pick<
  TrialRecord,
  | 'task_id'
  | 'provider'
  | 'model'
  | 'mode'
  | 'attempt'
  | 'status'
  | 'score'
  | 'label'
  | 'flags'
  | 'error'
  | 'error_stage'
  | 'error_code'
> & {
  /** From the provider proxy's account (details.proxy); null when no proxy counted the trial. */
  tokens_in: number | null;
  tokens_out: number | null;
  cost_usd: number | null;
};

export interface AuditRecord {
  created_at: string;
  run_id: string;
  reviewer: string;
  items: number;
  agreed: number;
  agreement: number;
  details: Record<string, unknown>;
}

export class Store {
  private constructor(private readonly db: Database.Database) {}
  private trialColumns?: string[];

  static open(path: string): Store {
    // A results root NanoBench creates is its user's alone: it holds the database, the cache and
    // every trial's workspace (an existing directory, e.g. the cwd, is left as it is).
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    let db: Database.Database;
    try {
      db = new Database(path);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 5000');
      db.pragma('foreign_keys = ON');
    } catch (e) {
      throw new UserError(
        'STORE_OPEN',
        `${path}: cannot open the results database (${(e as Error).message})`,
      );
    }
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > MIGRATIONS.length)
      throw new UserError(
        'STORE_VERSION',
        `${path}: written by a newer NanoBench (schema ${version}); upgrade NanoBench`,
      );
    for (let v = version; v < MIGRATIONS.length; v++) {
      db.transaction(() => {
        db.exec(MIGRATIONS[v]);
        db.pragma(`user_version = ${v + 1}`);
      })();
    }
    return new Store(db);
  }

  close(): void {
    this.db.close();
  }

  /** Run `fn` as one transaction (nested calls become savepoints): all of it or none. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  createRun(run: RunRecord): void {
    this.db
      .prepare(
        'INSERT INTO runs (id, created_at, finished_at, status, config, plan_size) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(
        run.id,
        run.created_at,
        run.finished_at,
        run.status,
        JSON.stringify(run.config),
        run.plan_size,
      );
  }

  setRunStatus(id: string, status: RunRecord['status']): void {
    const finished = status === 'running' ? null : new Date().toISOString();
    this.db
      .prepare('UPDATE runs SET status = ?, finished_at = ? WHERE id = ?')
      .run(status, finished, id);
  }

  getRun(id: string): RunRecord | undefined {
    const row = this.db.prepare('SELECT * FROM runs WHERE id = ?').get(id) as
      | Record<string, unknown>
      | undefined;
    return row
      ? { ...(row as unknown as RunRecord), config: JSON.parse(row.config as string) }
      : undefined;
  }

  latestRun(): RunRecord | undefined {
    const row = this.db
      .prepare('SELECT id FROM runs ORDER BY created_at DESC, rowid DESC LIMIT 1')
      .get() as { id: string } | undefined;
    return row ? this.getRun(row.id) : undefined;
  }

  listRuns(): RunRecord[] {
    const rows = this.db.prepare('SELECT id FROM runs ORDER BY created_at, rowid').all() as {
      id: string;
    }[];
    return rows.map((r) => this.getRun(r.id)!);
  }

  /** Store one finished trial atomically. Returns false if it was already stored (never duplicated). */
  insertTrial(t: TrialRecord): boolean {
    const cols = Object.keys(t) as (keyof TrialRecord)[];
    const values = cols.map((c) => {
      const v = t[c];
      if ((JSON_COLS as readonly string[]).includes(c)) return JSON.stringify(v);
      if (typeof v === 'boolean') return v ? 1 : 0;
      return v;
    });
    const sql = `INSERT OR IGNORE INTO trials (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`;
    const info = this.db.transaction(() => this.db.prepare(sql).run(...values))();
    return info.changes === 1;
  }

  insertAudit(a: AuditRecord): void {
    this.db
      .prepare(
        'INSERT INTO audits (created_at, run_id, reviewer, items, agreed, agreement, details) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        a.created_at,
        a.run_id,
        a.reviewer,
        a.items,
        a.agreed,
        a.agreement,
        JSON.stringify(a.details),
      );
  }

  /** The most recent Level-4 audit: the one reports follow. */
  latestAudit(): AuditRecord | undefined {
    const row = this.db.prepare('SELECT * FROM audits ORDER BY id DESC LIMIT 1').get() as
      | (Omit<AuditRecord, 'details'> & { details: string; id: number })
      | undefined;
    if (!row) return undefined;
    const { id: _id, ...rest } = row;
    return { ...rest, details: JSON.parse(row.details) };
  }

  trialKeys(runId: string): Set<string> {
    const rows = this.db.prepare('SELECT trial_key FROM trials WHERE run_id = ?').all(runId) as {
      trial_key: string;
    }[];
    return new Set(rows.map((r) => r.trial_key));
  }

  trials(runId: string): TrialRecord[] {
    // Rows come back as arrays (every column but the row id) and are built as plain objects
    // here: cheaper than better-sqlite3's row objects, and no `delete` of the id (which turns V8
    // objects into slow dictionaries). A large run loads several times faster.
    this.trialColumns ??= (this.db.pragma('table_info(trials)') as { name: string }[])
      .map((c) => c.name)
      .filter((n) => n !== 'id');
    const names = this.trialColumns;
    const rows = this.db
      .prepare(`SELECT ${names.join(', ')} FROM trials WHERE run_id = ? ORDER BY id`)
      .raw()
      .all(runId) as unknown[][];
    return rows.map((row) => {
      const r: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) r[names[i]] = row[i];
      for (const c of JSON_COLS) r[c] = parseJson(r[c] as string);
      r.timed_out = r.timed_out === 1;
      return r as unknown as TrialRecord;
    });
  }

  /** What reports and comparisons read, without the telemetry (details, files): light on big runs. */
  trialOutcomes(runId: string): TrialOutcomeRow[] {
    const rows = this.db
      .prepare(
        `SELECT task_id, provider, model, mode, attempt, status, score, label, flags, error,
           error_stage, error_code,
           json_extract(details, '$.proxy.tokens.input') AS tokens_in,
           json_extract(details, '$.proxy.tokens.output') AS tokens_out,
           json_extract(details, '$.proxy.cost_usd') AS cost_usd
         FROM trials WHERE run_id = ? ORDER BY id`,
      )
      .all(runId) as (Omit<TrialOutcomeRow, 'flags'> & { flags: unknown })[];
    for (const r of rows) r.flags = parseJson(r.flags as string);
    return rows as TrialOutcomeRow[];
  }
}
