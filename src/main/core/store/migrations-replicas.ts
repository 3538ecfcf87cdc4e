// Migrations of the replicas domain (versions 50-59).
export const replicaMigrations: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 50,
    sql: `
      -- a session's replica target (NULL: the replicateTo setting) and its generation: it grows
      -- by one at each fail-over, so a copy made before one is known as stale when its server returns
      CREATE TABLE replica_sessions (
        session_id TEXT PRIMARY KEY,
        target TEXT,
        generation INTEGER NOT NULL DEFAULT 0
      );
      -- one copy of a session per server: current (a stopped container holding its last pause or
      -- seal), syncing (being brought up to date: not usable), or stale (the container a fail-over left)
      CREATE TABLE replicas (
        session_id TEXT NOT NULL,
        server TEXT NOT NULL,
        container_id TEXT,
        kind TEXT NOT NULL CHECK (kind IN ('memory','disk')),
        checkpoint TEXT,
        pause_seq INTEGER,
        at TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('current','syncing','stale')),
        generation INTEGER NOT NULL,
        source TEXT NOT NULL,
        bytes INTEGER NOT NULL DEFAULT 0,
        synced_at TEXT,
        failure TEXT,
        stage_key TEXT,
        PRIMARY KEY (session_id, server)
      );
    `,
  },
]
