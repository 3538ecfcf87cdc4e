// Versioned migrations: each runs once, in version order, inside a transaction; schema_migrations
// records which ran. Never edit a released step: add a new one. Each domain owns a range of
// versions (1-9 foundation, 10-19 pause and meter, 20-29 snapshots and workspace, 30-39 routes,
// 40-49 desktop, 50-59 replicas) so work on several domains can land in any order.
import { replicaMigrations } from './migrations-replicas'
import { routesMigrations } from './migrations-routes'
import { snapshotMigrations } from './migrations-snapshots'

export const migrations: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
      CREATE TABLE servers (
        name TEXT PRIMARY KEY,
        kind TEXT NOT NULL CHECK (kind IN ('local','ssh')),
        url TEXT NOT NULL,
        identity TEXT,
        host_key_fp TEXT,
        rate_per_hour REAL NOT NULL DEFAULT 0,
        options TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL
      );
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        server TEXT NOT NULL,
        state TEXT NOT NULL,
        mode TEXT,
        paused_by TEXT,
        durable INTEGER NOT NULL DEFAULT 0,
        image TEXT NOT NULL,
        container_id TEXT,
        route TEXT NOT NULL UNIQUE,
        env TEXT NOT NULL DEFAULT '{}',
        secrets TEXT NOT NULL DEFAULT '[]',
        workspace TEXT,
        auto_pause INTEGER NOT NULL DEFAULT 1,
        idle_after_s INTEGER,
        options TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        finished_at TEXT,
        saved_at TEXT,
        failure TEXT,
        version INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX sessions_state ON sessions(state);
      CREATE INDEX sessions_server ON sessions(server);
      CREATE TABLE snapshots (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        version INTEGER NOT NULL,
        kind TEXT NOT NULL,
        session_id TEXT,
        server TEXT NOT NULL,
        image_ref TEXT,
        checkpoint TEXT,
        volume_ref TEXT,
        size_bytes INTEGER NOT NULL DEFAULT 0,
        parent_snapshot TEXT,
        auto INTEGER NOT NULL DEFAULT 0,
        test_restored INTEGER NOT NULL DEFAULT 0,
        tags TEXT NOT NULL DEFAULT '[]',
        detail TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        UNIQUE (name, version)
      );
      CREATE INDEX snapshots_session ON snapshots(session_id);
      CREATE TABLE events (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        at TEXT NOT NULL,
        session_id TEXT,
        kind TEXT NOT NULL,
        from_state TEXT,
        to_state TEXT,
        detail TEXT NOT NULL DEFAULT '{}'
      );
      CREATE INDEX events_session ON events(session_id, seq);
      CREATE TABLE meter_samples (
        session_id TEXT NOT NULL,
        at TEXT NOT NULL,
        cpu_seconds REAL NOT NULL,
        memory_bytes INTEGER NOT NULL,
        disk_bytes INTEGER NOT NULL,
        PRIMARY KEY (session_id, at)
      );
    `,
  },
  // 10-19: pause and meter (issue 3)
  {
    version: 10,
    sql: `
      -- one row per pause: what it kept and where, so a crash, a dropped connection or a later
      -- resume/move can find the artefacts and the server-side job again
      CREATE TABLE pauses (
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        snapshot TEXT NOT NULL,
        server TEXT NOT NULL,
        container_id TEXT NOT NULL,
        requested TEXT NOT NULL,
        mode TEXT,
        paused_by TEXT NOT NULL,
        job TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'running' CHECK (status IN ('running','paused','durable','failed','resumed')),
        checkpoint TEXT,
        image TEXT,
        bytes INTEGER NOT NULL DEFAULT 0,
        fallback TEXT,
        failure TEXT,
        detail TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        durable_at TEXT,
        resumed_at TEXT,
        removed_at TEXT,
        PRIMARY KEY (session_id, seq)
      );
      CREATE INDEX pauses_status ON pauses(status);
      -- the meter's running totals per session (samples stay in meter_samples)
      CREATE TABLE meter_totals (
        session_id TEXT PRIMARY KEY,
        cpu_seconds REAL NOT NULL DEFAULT 0,
        cpu_raw REAL,
        running_seconds REAL NOT NULL DEFAULT 0,
        cost REAL NOT NULL DEFAULT 0,
        peak_memory INTEGER NOT NULL DEFAULT 0,
        memory INTEGER NOT NULL DEFAULT 0,
        disk INTEGER NOT NULL DEFAULT 0,
        cpu_percent REAL NOT NULL DEFAULT 0,
        samples INTEGER NOT NULL DEFAULT 0,
        sampled_at TEXT,
        running_since TEXT
      );
    `,
  },
  {
    // what a server's memory-pause test found (criu-probe.ts), JSON; NULL until it ran
    version: 11,
    sql: `ALTER TABLE servers ADD COLUMN memory_probe TEXT;`,
  },
  ...snapshotMigrations,
  ...routesMigrations,
  ...replicaMigrations,
]
