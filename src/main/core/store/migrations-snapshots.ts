// Migrations of the snapshots, workspace and secrets domain (versions 20-29).
export const snapshotMigrations: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 20,
    sql: `
      ALTER TABLE snapshots ADD COLUMN reason TEXT NOT NULL DEFAULT 'named';
      -- creating: artefacts are being written; ready; deleting: removal under way (a crash resumes it)
      ALTER TABLE snapshots ADD COLUMN state TEXT NOT NULL DEFAULT 'ready';
      CREATE INDEX snapshots_server ON snapshots(server);
      CREATE INDEX snapshots_name ON snapshots(name, version);
      -- versions are never reused, even after a delete: nightly:v2 always means the same capture
      CREATE TABLE snapshot_names (
        name TEXT PRIMARY KEY,
        last_version INTEGER NOT NULL
      );
      -- what keeps a snapshot from automatic retention (a fork, a named snapshot, a rewind)
      CREATE TABLE snapshot_pins (
        snapshot_id TEXT NOT NULL,
        by TEXT NOT NULL,
        reason TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (snapshot_id, by)
      );
    `,
  },
  {
    version: 21,
    sql: `
      CREATE TABLE workspace_saves (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL,
        at TEXT NOT NULL,
        commit_id TEXT NOT NULL,
        merge_id TEXT,
        main_id TEXT NOT NULL,
        message TEXT
      );
      CREATE INDEX workspace_saves_session ON workspace_saves(session_id, seq);
    `,
  },
]
