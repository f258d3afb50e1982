// The results store: one SQLite file in WAL mode. Each finished trial is one transaction, so a
// crash loses at most the trials still in flight; artifacts live as files next to the database.
import { accessSync, constants, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { ErrorTrial, ScoredTrial, TrialRecord } from '../trial/record.js';
import { UserError } from '../util/errors.js';
import { MIGRATIONS } from './migrations.js';

// Trials are read back as TrialRecord, each column as stored (the row casts below): the union of
// a scored trial and an infra error, which the status column says (the CHECK on it, and a trial
// is stored only once it has an outcome). Their types allow what other versions wrote: a label
// these rules lack is an OtherLabel (src/score/labels.ts), kept as is so reports show it and merge
// copies it; an error stored before migration 3 has no stage or code; details keys are optional.
export type { TrialRecord };

export interface RunRecord {
  id: string;
  created_at: string;
  finished_at: string | null;
  status: 'running' | 'finished' | 'interrupted';
  /**
   * The run's configuration as stored JSON. Read it through readRunConfig
   * (src/run/stored-config.ts); the store itself reads only planFacts.
   */
  config: Record<string, unknown>;
  plan_size: number;
}

/**
 * The fields of a run's stored configuration the store layer reads itself (merge: what decides
 * the plan, the agent build, the rules, the shard), each optional as in runs that predate it.
 * src/run/stored-config.ts, which writes the JSON, checks its StoredRunConfig satisfies this.
 */
export interface StoredPlanFacts {
  agent?: string;
  models?: { provider: string; model: string }[];
  modes?: string[];
  runs?: number;
  taskIds?: string[];
  task_digests?: Record<string, string>;
  agent_info?: Record<string, unknown>;
  scoring_rules_version?: number;
  shard?: { index: number; count: number };
  /** For shards: the size of the whole plan. */
  full_plan_size?: number;
  /** A merged run: the runs it was merged from (src/store/merge.ts writes it). */
  merged_from?: { source: string; run_id: string; shard: unknown; status: string }[];
}

/** What a run's stored configuration says of its plan: the store's one cast of that JSON. */
export const planFacts = (run: Pick<RunRecord, 'config'>): StoredPlanFacts =>
  run.config as StoredPlanFacts;

const JSON_COLS = ['files_changed', 'flags', 'details'] as const;

/** What reports and the viewer read of a trial: its outcome and the proxy's counts. */
const OUTCOME_COLUMNS = `task_id, agent, provider, model, mode, attempt, status, score, label, flags, error,
  error_stage, error_code,
  json_extract(details, '$.proxy.tokens.input') AS tokens_in,
  json_extract(details, '$.proxy.tokens.output') AS tokens_out,
  json_extract(details, '$.proxy.cost_usd') AS cost_usd`;

/**
 * A stored JSON value, of the shape NanoBench writes (an object or an array). Most are empty:
 * those skip the parser. Anything else throws a SyntaxError, which every Store method turns into
 * one line naming the file and the row (malformedJson).
 */
function parseJson(s: string, shape: 'object' | 'array' = 'object'): unknown {
  if (s === '[]' && shape === 'array') return [];
  if (s === '{}' && shape === 'object') return {};
  const v: unknown = JSON.parse(s);
  const ok =
    shape === 'array' ? Array.isArray(v) : typeof v === 'object' && v !== null && !Array.isArray(v);
  if (!ok) throw new SyntaxError(`not a JSON ${shape}`);
  return v;
}

/** A raw trials row (as an array, in `names` order) as a plain object with its JSON parsed. */
function rowObject(names: string[], row: unknown[]): Record<string, unknown> {
  const r: Record<string, unknown> = {};
  for (let i = 0; i < names.length; i++) r[names[i]] = row[i];
  for (const c of JSON_COLS) r[c] = parseJson(r[c] as string, c === 'details' ? 'object' : 'array');
  r.timed_out = r.timed_out === 1;
  return r;
}

/** The JSON columns and the shape each holds, for finding the one a failed read met. */
const STORED_JSON = [
  ['runs', 'config', "'run ' || id", 'object'],
  ['trials', 'details', "'trial ' || id || ' of run ' || run_id", 'object'],
  ['trials', 'flags', "'trial ' || id || ' of run ' || run_id", 'array'],
  ['trials', 'files_changed', "'trial ' || id || ' of run ' || run_id", 'array'],
  ['audits', 'details', "'audit ' || id", 'object'],
] as const;

/**
 * A read that met JSON that NanoBench did not write (a SyntaxError from JSON.parse, or SQLite's
 * "malformed JSON" from json_extract) as one line naming the file and the first bad row.
 */
function malformedJson(db: Database.Database, path: string, e: unknown): UserError | undefined {
  const sqlite = e instanceof Database.SqliteError && /malformed JSON/i.test(e.message);
  if (!(e instanceof SyntaxError) && !sqlite) return undefined;
  let where = 'a stored JSON value';
  try {
    for (const [table, col, label, shape] of STORED_JSON) {
      const bad = db
        .prepare(
          `SELECT ${label} AS what FROM ${table} WHERE CASE WHEN json_valid(${col}) THEN json_type(${col}) <> '${shape}' ELSE 1 END LIMIT 1`,
        )
        .get() as { what: string } | undefined;
      if (bad) {
        where = `${table}.${col} of ${bad.what}`;
        break;
      }
    }
  } catch {
    // the file itself may be unreadable by now: say what we know
  }
  return new UserError(
    'STORE_CORRUPT',
    `${path}: ${where} is damaged (${(e as Error).message}); the database was changed outside NanoBench: restore it from a copy, or start a new one with another --db`,
  );
}

type OutcomeColumn =
  | 'task_id'
  | 'agent'
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
  | 'error_code';

/** These columns of a scored trial or of an infra error: `status` still says which. */
export type TrialOutcomeRow = (
  | Pick<ScoredTrial, OutcomeColumn>
  | Pick<ErrorTrial, OutcomeColumn>
) & {
  /** From the provider proxy's account (details.proxy); null when no proxy counted the trial. */
  tokens_in: number | null;
  tokens_out: number | null;
  cost_usd: number | null;
  /** details.phase_ms and details.provision.mode: where the trial's time went. */
  phase_ms: Record<string, number> | null;
  provision_mode: string | null;
  /** From details.files_read (the agent's tool calls); null when the agent reported none. */
  files_read: number | null;
  required_read: number | null;
  required_total: number | null;
};

export interface RunLease {
  run_id: string;
  /** Unique per process execution: host:pid:random. */
  holder: string;
  host: string;
  pid: number;
  acquired_at: string;
  heartbeat_at: string;
}

export interface AuditRecord {
  created_at: string;
  run_id: string;
  reviewer: string;
  items: number;
  agreed: number;
  agreement: number;
  details: Record<string, unknown>;
}

export interface OpenOptions {
  /**
   * Open an existing NanoBench database or refuse: never create one (read-only commands such as
   * report, compare, audit export, ci comment, merge inputs, run --resume).
   */
  mustExist?: boolean;
  /**
   * Open read-only (implies mustExist): SQLite itself refuses every write, so a reader such as
   * `nanobench view` cannot change a store a run may be writing. Nothing is migrated either.
   */
  readonly?: boolean;
  /**
   * A command that only reads (report, compare, ci comment, merge inputs, audit export,
   * calibration; implies mustExist): it opens the store as a writer would (an older schema is
   * upgraded), but read-only where the file cannot be written (a read-only mount).
   */
  reader?: boolean;
}

/** A stored trial with its row id: the id the viewer's URLs name. */
export type StoredTrial = TrialRecord & { id: number };

/** What the viewer lists per trial: outcomes plus the row id and the duration. */
export type TrialIndexRow = TrialOutcomeRow & { id: number; duration_ms: number };

/** Counts per run for the runs page (one query for the whole store). */
export interface RunTally {
  run_id: string;
  trials: number;
  scored: number;
  passed: number;
  errors: number;
}

/** Whether this process may write the database file and its directory (SQLite's -wal, -shm). */
function writable(path: string): boolean {
  try {
    if (existsSync(path)) accessSync(path, constants.W_OK);
    accessSync(dirname(path), constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** An empty file or another program's SQLite database: refused before anything writes to it. */
function notNanoBench(db: Database.Database, path: string): void {
  if (db.pragma('user_version', { simple: true }) === 0)
    throw new UserError(
      'STORE_NOT_NANOBENCH',
      `${path}: not a NanoBench results database (no runs were ever stored in it; check --db)`,
    );
}

const newerSchema = (path: string, version: number) =>
  new UserError(
    'STORE_VERSION',
    `${path}: written by a newer NanoBench (schema ${version}); upgrade NanoBench`,
  );

/** What failed while opening, as one line naming the file. */
function openError(path: string, e: unknown): UserError {
  if (e instanceof UserError) return e;
  const abi =
    /NODE_MODULE_VERSION (\d+)\. This version of Node\.js requires\s+NODE_MODULE_VERSION (\d+)/.exec(
      (e as Error)?.message ?? '',
    );
  // Installed under one Node, run under another (nvm, a second Node on PATH): the database is
  // not the problem, SQLite's native module is.
  if (abi)
    return new UserError(
      'STORE_NATIVE_MODULE',
      `better-sqlite3 was built for another Node.js (module version ${abi[1]}) than this one (${process.version}, module version ${abi[2]}): run "npm rebuild better-sqlite3" in NanoBench's directory with this Node, or run NanoBench with the Node it was installed with`,
    );
  const bad = badDatabase(path, e);
  if (bad) return bad;
  if (!writable(path))
    return new UserError(
      'STORE_READ_ONLY',
      `${path}: the results database is not writable here (a read-only file system, or another user's file: ${(e as Error).message}); a run stores its trials in it: copy it to a writable place and pass that with --db`,
    );
  return new UserError(
    'STORE_OPEN',
    `${path}: cannot open the results database (${(e as Error).message})`,
  );
}

/**
 * The database file read into memory, for a read-only mount where SQLite cannot open it in
 * place. Its header is marked as not WAL (an in-memory database cannot be); a -wal file beside
 * it that holds unmerged pages would be left out, so that case is refused instead.
 */
function inMemoryCopy(path: string): Database.Database {
  const wal = `${path}-wal`;
  if (existsSync(wal) && statSync(wal).size > 0)
    throw new UserError(
      'STORE_READ_ONLY',
      `${path}: on a read-only file system with a write-ahead log (${wal}) that was never merged into it, which SQLite cannot read there: copy both files to a writable place and open the copy`,
    );
  const bytes = readFileSync(path);
  // Bytes 18-19: the file format's write and read versions (2 = WAL, 1 = rollback journal).
  if (bytes.length > 19 && bytes[18] === 2 && bytes[19] === 2) bytes.fill(1, 18, 20);
  return new Database(bytes, { readonly: true });
}

/** A SQLite error that means the file itself is bad, as one line naming the file; else undefined. */
export function badDatabase(path: string, e: unknown): UserError | undefined {
  const code = (e as { code?: unknown })?.code;
  if (!(e instanceof Database.SqliteError) || typeof code !== 'string') return undefined;
  if (code === 'SQLITE_NOTADB')
    return new UserError('STORE_NOT_SQLITE', `${path}: not a SQLite database (check --db)`);
  if (code.startsWith('SQLITE_CORRUPT'))
    return new UserError(
      'STORE_CORRUPT',
      `${path}: the results database is corrupt (${e.message}); restore it from a copy, or start a new one with another --db`,
    );
  return undefined;
}

export class Store {
  private constructor(
    private readonly db: Database.Database,
    readonly path: string,
  ) {}
  private trialColumns?: string[];

  static open(path: string, opts: OpenOptions = {}): Store {
    const mustExist = Boolean(opts.mustExist || opts.readonly || opts.reader);
    // A results root NanoBench creates is its user's alone: it holds the database, the cache and
    // every trial's workspace (an existing directory, e.g. the cwd, is left as it is).
    if (!mustExist) mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    else if (!existsSync(path))
      throw new UserError('STORE_NOT_FOUND', `${path}: no such results database (check --db)`);
    // A reader on storage it cannot write (a read-only mount) reads it as it is.
    if (opts.readonly || (opts.reader && !writable(path))) return Store.openReadOnly(path);
    let db: Database.Database | undefined;
    try {
      db = new Database(path, { fileMustExist: mustExist });
      // Before anything writes: an empty file or another program's SQLite database is left as is.
      if (mustExist) notNanoBench(db, path);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.pragma('busy_timeout = 5000');
      db.pragma('foreign_keys = ON');
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version > MIGRATIONS.length) throw newerSchema(path, version);
      for (let v = version; v < MIGRATIONS.length; v++) {
        db.transaction(() => {
          db!.exec(MIGRATIONS[v]);
          db!.pragma(`user_version = ${v + 1}`);
        })();
      }
    } catch (e) {
      db?.close();
      throw openError(path, e);
    }
    return new Store(db, path);
  }

  /**
   * Read-only: SQLite refuses every write. On a read-only mount SQLite cannot open a WAL
   * database without its -shm file (and cannot make one there): then the file is read into
   * memory as it is, which is all a reader needs of a store nothing can write to.
   */
  private static openReadOnly(path: string): Store {
    let db: Database.Database | undefined;
    try {
      try {
        db = new Database(path, { fileMustExist: true, readonly: true });
        notNanoBench(db, path);
      } catch (e) {
        db?.close();
        if ((e as { code?: string }).code !== 'SQLITE_CANTOPEN' || writable(path)) throw e;
        db = inMemoryCopy(path);
        notNanoBench(db, path);
      }
      db.pragma('busy_timeout = 5000');
      const version = db.pragma('user_version', { simple: true }) as number;
      // Older schemas lack columns the queries read, and a read-only store cannot migrate.
      if (version > MIGRATIONS.length) throw newerSchema(path, version);
      if (version < MIGRATIONS.length)
        throw new UserError(
          'STORE_VERSION',
          writable(path)
            ? `${path}: written by an older NanoBench (schema ${version} of ${MIGRATIONS.length}); run "nanobench report --db ${path}" once to upgrade it, then open it read-only`
            : `${path}: written by an older NanoBench (schema ${version} of ${MIGRATIONS.length}) and not writable here, so it cannot be upgraded: copy it to a writable place and run "nanobench report --db COPY" once`,
        );
      return new Store(db, path);
    } catch (e) {
      db?.close();
      throw openError(path, e);
    }
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
      ? {
          ...(row as unknown as RunRecord),
          config: parseJson(row.config as string) as RunRecord['config'],
        }
      : undefined;
  }

  latestRun(): RunRecord | undefined {
    const row = this.db
      .prepare('SELECT id FROM runs ORDER BY created_at DESC, rowid DESC LIMIT 1')
      .get() as { id: string } | undefined;
    return row ? this.getRun(row.id) : undefined;
  }

  /** Every run id, oldest first (ids sort by creation time). */
  listRunIds(): string[] {
    return (
      this.db.prepare('SELECT id FROM runs ORDER BY created_at, rowid').all() as { id: string }[]
    ).map((r) => r.id);
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

  getLease(runId: string): RunLease | undefined {
    return this.db.prepare('SELECT * FROM run_leases WHERE run_id = ?').get(runId) as
      | RunLease
      | undefined;
  }

  /**
   * Take the run's lease when `canTake` allows it for the current holder (or there is none), in
   * one transaction: two processes cannot both win. Returns the holder found when refused.
   */
  takeLease(
    lease: RunLease,
    canTake: (current: RunLease) => boolean,
  ): { taken: true } | { taken: false; current: RunLease } {
    return this.db
      .transaction(() => {
        const current = this.getLease(lease.run_id);
        if (current && current.holder !== lease.holder && !canTake(current))
          return { taken: false as const, current };
        this.db
          .prepare(
            `INSERT INTO run_leases (run_id, holder, host, pid, acquired_at, heartbeat_at)
           VALUES (@run_id, @holder, @host, @pid, @acquired_at, @heartbeat_at)
           ON CONFLICT(run_id) DO UPDATE SET holder = @holder, host = @host, pid = @pid,
             acquired_at = @acquired_at, heartbeat_at = @heartbeat_at`,
          )
          .run(lease);
        return { taken: true as const };
      })
      .immediate();
  }

  /** Renew the lease; false when another process holds it now. */
  heartbeat(runId: string, holder: string, at: string): boolean {
    const info = this.db
      .prepare('UPDATE run_leases SET heartbeat_at = ? WHERE run_id = ? AND holder = ?')
      .run(at, runId, holder);
    return info.changes === 1;
  }

  releaseLease(runId: string, holder: string): void {
    this.db.prepare('DELETE FROM run_leases WHERE run_id = ? AND holder = ?').run(runId, holder);
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
    return { ...rest, details: parseJson(row.details) as AuditRecord['details'] };
  }

  /**
   * Forget the run's trials stored as infra errors of these causes (a stage, or stage/code), so a
   * resume runs them again; one transaction. Returns the causes of what was removed.
   */
  forgetErrorTrials(runId: string, causes: { stage: string; code?: string }[]): string[] {
    const rows = this.db
      .prepare(
        "SELECT id, error_stage, error_code FROM trials WHERE run_id = ? AND status = 'error'",
      )
      .all(runId) as { id: number; error_stage: string | null; error_code: string | null }[];
    const hit = rows.filter((r) =>
      causes.some(
        (c) => c.stage === r.error_stage && (c.code === undefined || c.code === r.error_code),
      ),
    );
    const del = this.db.prepare('DELETE FROM trials WHERE id = ?');
    this.db.transaction(() => {
      for (const r of hit) del.run(r.id);
    })();
    return hit.map((r) => `${r.error_stage}/${r.error_code}`);
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
    const names = this.columns();
    const rows = this.db
      .prepare(`SELECT ${names.join(', ')} FROM trials WHERE run_id = ? ORDER BY id`)
      .raw()
      .all(runId) as unknown[][];
    return rows.map((row) => rowObject(names, row) as unknown as TrialRecord);
  }

  /** What reports and comparisons read, without the telemetry (details, files): light on big runs. */
  trialOutcomes(runId: string): TrialOutcomeRow[] {
    const rows = this.db
      .prepare(
        `SELECT ${OUTCOME_COLUMNS},
           json_extract(details, '$.files_read.count') AS files_read,
           json_array_length(details, '$.files_read.required') AS required_read,
           json_extract(details, '$.files_read.required_total') AS required_total,
           json_extract(details, '$.phase_ms') AS phase_ms,
           json_extract(details, '$.provision.mode') AS provision_mode
         FROM trials WHERE run_id = ? ORDER BY id`,
      )
      .all(runId) as (Omit<TrialOutcomeRow, 'flags' | 'phase_ms'> & {
      flags: unknown;
      phase_ms: unknown;
    })[];
    for (const r of rows) {
      r.flags = parseJson(r.flags as string, 'array');
      r.phase_ms = r.phase_ms ? parseJson(r.phase_ms as string) : null;
    }
    return rows as TrialOutcomeRow[];
  }

  // ---- the viewer's reads (src/view/) ----

  /** The trials table's columns but the row id. */
  private columns(): string[] {
    this.trialColumns ??= (this.db.pragma('table_info(trials)') as { name: string }[])
      .map((c) => c.name)
      .filter((n) => n !== 'id');
    return this.trialColumns;
  }

  /** One trial of a run by its row id (undefined when the run has no such trial). */
  trial(runId: string, id: number): StoredTrial | undefined {
    const names = this.columns();
    const row = this.db
      .prepare(`SELECT id, ${names.join(', ')} FROM trials WHERE run_id = ? AND id = ?`)
      .raw()
      .get(runId, id) as unknown[] | undefined;
    if (!row) return undefined;
    return { ...rowObject(names, row.slice(1)), id: row[0] } as StoredTrial;
  }

  /** Every trial of a run as the viewer lists it: outcomes, row id and duration, oldest first. */
  trialIndex(runId: string): TrialIndexRow[] {
    const rows = this.db
      .prepare(
        `SELECT id, duration_ms, ${OUTCOME_COLUMNS}
         FROM trials WHERE run_id = ? ORDER BY id`,
      )
      .all(runId) as (Omit<TrialIndexRow, 'flags'> & { flags: unknown })[];
    for (const r of rows) r.flags = parseJson(r.flags as string, 'array');
    return rows as TrialIndexRow[];
  }

  /** Trial counts and pass counts of every run, in one query (the runs page). */
  runTallies(): RunTally[] {
    return this.db
      .prepare(
        `SELECT run_id, count(*) AS trials,
           sum(status = 'scored') AS scored,
           sum(status = 'scored' AND label = 'pass') AS passed,
           sum(status = 'error') AS errors
         FROM trials GROUP BY run_id`,
      )
      .all() as RunTally[];
  }

  /** How far a run has come: what a live page polls (cheap: an index lookup). */
  runProgress(runId: string): { status: RunRecord['status']; trials: number; last_id: number } {
    const run = this.db.prepare('SELECT status FROM runs WHERE id = ?').get(runId) as
      | { status: RunRecord['status'] }
      | undefined;
    const t = this.db
      .prepare('SELECT count(*) AS n, coalesce(max(id), 0) AS last FROM trials WHERE run_id = ?')
      .get(runId) as { n: number; last: number };
    return { status: run?.status ?? 'interrupted', trials: t.n, last_id: t.last };
  }
}

// Every method that queries: a corrupt page is often found only when a query reads it (the
// header and schema were fine at open), and must still be one line naming the file; so must a
// JSON column that holds what NanoBench never wrote.
for (const name of Object.getOwnPropertyNames(Store.prototype)) {
  const method = Object.getOwnPropertyDescriptor(Store.prototype, name)?.value;
  if (name === 'constructor' || typeof method !== 'function') continue;
  Object.defineProperty(Store.prototype, name, {
    value(this: Store, ...args: unknown[]) {
      try {
        return method.apply(this, args);
      } catch (e) {
        const db = (this as unknown as { db: Database.Database }).db;
        throw badDatabase(this.path, e) ?? malformedJson(db, this.path, e) ?? e;
      }
    },
  });
}
