/** Shared because every app persists the same way: DataSource factory (Postgres or PGlite), naming, migrations at boot. */
export { type AppDataSourceDefinition, assertSchemaName, createDataSourceOptions, MIGRATIONS_TABLE } from './data-source.factory';
export { databaseHealthChecks, databaseReadinessCheck } from './database.health';
export type { DatabaseOptions } from './database.options';
export { type MigrationRunResult, runMigrations } from './migration.runner';
export { type PersistenceAppOptions, PersistenceModule } from './persistence.module';
export { type PostgresDriverModule, sharedPGliteDriver } from './shared-pglite.driver';
export { snakeCase, SnakeNamingStrategy } from './snake-naming.strategy';
export { createThrowawayDatabase, DEFAULT_TEST_DATABASE_URL, type ThrowawayDatabase } from './throwaway-database';
