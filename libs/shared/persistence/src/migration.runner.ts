import type { DataSource } from 'typeorm';
import { assertSchemaName } from './data-source.factory';

export interface MigrationRunResult {
  /** Names of the migrations this call applied (empty when another replica got there first). */
  applied: string[];
}

/**
 * Brings the app's schema up to date at boot: creates the schema, then runs the pending committed
 * migrations. On a Postgres server several replicas may start at once, so the work is done under a
 * session-level advisory lock keyed by the schema: one replica migrates, the others wait and find
 * nothing left to do. PGlite lives in one process whose pool hands out one connection at a time,
 * which already serializes the apps, and taking a lock on a second connection would deadlock there.
 */
export async function runMigrations(dataSource: DataSource, schema: string): Promise<MigrationRunResult> {
  assertSchemaName(schema);
  const pglite = dataSource.options.type === 'postgres' && dataSource.options.driver !== undefined;
  if (pglite) {
    await dataSource.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    return { applied: (await dataSource.runMigrations({ transaction: 'all' })).map((migration) => migration.name) };
  }
  const lockHolder = dataSource.createQueryRunner();
  try {
    await lockHolder.connect();
    await lockHolder.query(`SELECT pg_advisory_lock(hashtext($1))`, [`mcp-platform:migrations:${schema}`]);
    try {
      // Inside the lock: CREATE SCHEMA IF NOT EXISTS is not race-free on its own.
      await lockHolder.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
      const applied = await dataSource.runMigrations({ transaction: 'all' });
      return { applied: applied.map((migration) => migration.name) };
    } finally {
      await lockHolder.query(`SELECT pg_advisory_unlock(hashtext($1))`, [`mcp-platform:migrations:${schema}`]);
    }
  } finally {
    await lockHolder.release();
  }
}
