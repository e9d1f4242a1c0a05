/**
 * Where an app's tables live: a PostgreSQL server (distributed mode) or PGlite, Postgres compiled to
 * WASM, inside the process (embedded mode). PGlite without `dataDir` keeps everything in memory.
 */
export type DatabaseOptions =
  | { kind: 'postgres'; url: string }
  | {
      kind: 'pglite';
      dataDir?: string;
      /**
       * Called once PGlite has closed its files, after the last app's connection ended: the embedded
       * host gives up its data directory's lock then, never while the database may still be written.
       */
      onClosed?: () => void;
    };
