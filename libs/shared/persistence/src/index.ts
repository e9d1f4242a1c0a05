/** Shared because every app persists the same way: DataSource factory (Postgres or PGlite), naming, migrations at boot. */
export type { DatabaseOptions } from './database.options';
export { createDataSourceOptions, assertSchemaName, MIGRATIONS_TABLE, type AppDataSourceDefinition } from './data-source.factory';
export { runMigrations, type MigrationRunResult } from './migration.runner';
export { SnakeNamingStrategy, snakeCase } from './snake-naming.strategy';
export { sharedPGliteDriver, type PostgresDriverModule } from './shared-pglite.driver';
export { PersistenceModule, type PersistenceAppOptions } from './persistence.module';
export { databaseHealthChecks, databaseReadinessCheck } from './database.health';
export { createThrowawayDatabase, DEFAULT_TEST_DATABASE_URL, type ThrowawayDatabase } from './throwaway-database';
