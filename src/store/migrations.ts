// Schema migrations, applied in order; PRAGMA user_version records how far a file has come.
export const MIGRATIONS: string[] = [
  `CREATE TABLE runs (
     id TEXT PRIMARY KEY,
     created_at TEXT NOT NULL,
     finished_at TEXT,
     status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),
     config TEXT NOT NULL,          -- JSON: the resolved run configuration (no secrets)
     plan_size INTEGER NOT NULL
   );
   CREATE TABLE trials (
     id INTEGER PRIMARY KEY,
     run_id TEXT NOT NULL REFERENCES runs(id),
     trial_key TEXT NOT NULL,
     task_id TEXT NOT NULL,
     agent TEXT NOT NULL,
     provider TEXT NOT NULL,
     model TEXT NOT NULL,
     mode TEXT NOT NULL,
     attempt INTEGER NOT NULL,
     status TEXT NOT NULL CHECK (status IN ('scored', 'error')),
     score REAL,
     label TEXT,
     confidence_level TEXT,
     tests_passed INTEGER NOT NULL DEFAULT 0,
     tests_failed INTEGER NOT NULL DEFAULT 0,
     tests_total INTEGER NOT NULL DEFAULT 0,
     files_changed TEXT NOT NULL DEFAULT '[]',
     flags TEXT NOT NULL DEFAULT '[]',
     exit_kind TEXT,
     timed_out INTEGER NOT NULL DEFAULT 0,
     error TEXT,
     details TEXT NOT NULL DEFAULT '{}',
     started_at TEXT NOT NULL,
     finished_at TEXT NOT NULL,
     duration_ms INTEGER NOT NULL,
     artifacts_dir TEXT,
     UNIQUE (run_id, trial_key)
   );
   CREATE INDEX trials_run ON trials(run_id);`,
  // 2: Level-4 audits (src/audit/). The latest decides whether reports collapse the two
  // Level-4 labels into implementation_error.
  `CREATE TABLE audits (
     id INTEGER PRIMARY KEY,
     created_at TEXT NOT NULL,
     run_id TEXT NOT NULL,
     reviewer TEXT NOT NULL,
     items INTEGER NOT NULL,
     agreed INTEGER NOT NULL,
     agreement REAL NOT NULL,
     details TEXT NOT NULL DEFAULT '{}'
   );`,
  // 3: infrastructure errors carry where (stage) and what (code), so reports group them by
  // cause instead of by message text. Older rows keep NULL and their message.
  `ALTER TABLE trials ADD COLUMN error_stage TEXT;
   ALTER TABLE trials ADD COLUMN error_code TEXT;`,
  // 4: a run is held by one process at a time (src/run/lease.ts): who, and when it last said
  // it was alive. A second process refuses to run it; a dead holder can be taken over.
  `CREATE TABLE run_leases (
     run_id TEXT PRIMARY KEY REFERENCES runs(id),
     holder TEXT NOT NULL,
     host TEXT NOT NULL,
     pid INTEGER NOT NULL,
     acquired_at TEXT NOT NULL,
     heartbeat_at TEXT NOT NULL
   );`,
];
