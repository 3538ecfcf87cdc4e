// Migrations of the routes domain (versions 30-39).
export const routesMigrations: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 30,
    sql: `
      -- the key in a session's preview addresses (http://<route>-<port>-<secret>.localhost:<port>/):
      -- made once per session with crypto randomness, kept for its whole life (pause, restart, move)
      CREATE TABLE preview_secrets (
        session_id TEXT PRIMARY KEY,
        route TEXT NOT NULL UNIQUE,
        secret TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
    `,
  },
]
