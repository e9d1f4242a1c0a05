import type { DataSourceOptions } from 'typeorm';
import type { DatabaseOptions } from './database.options';
import { sharedPGliteDriver } from './shared-pglite.driver';
import { SnakeNamingStrategy } from './snake-naming.strategy';

// TypeORM's own types for these lists (constructors, schemas or glob strings).
type EntityList = NonNullable<DataSourceOptions['entities']>;
type MigrationList = NonNullable<DataSourceOptions['migrations']>;

/** What one app brings: its schema, its entities and its committed migrations, all explicit. */
export interface AppDataSourceDefinition {
  /** The app's own Postgres schema (DESIGN.md §3: nobody reads another app's tables), e.g. `tool_executor`. */
  schema: string;
  entities: EntityList;
  migrations: MigrationList;
  /** Shown in `pg_stat_activity` (Postgres only). */
  applicationName?: string;
}

/** The migrations table of every app, inside the app's schema. */
export const MIGRATIONS_TABLE = 'migrations';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Refuses a schema name that would need quoting, so it can be interpolated into DDL safely. */
export function assertSchemaName(schema: string): void {
  if (!SCHEMA_NAME.test(schema)) throw new Error(`invalid schema name: ${schema}`);
}

/**
 * TypeORM options for one app (STYLE.md §7): postgres dialect on a server or on the process's shared
 * PGlite, the app's schema as default schema, snake_case names, no synchronize, migrations run by
 * `runMigrations()` (never by TypeORM at connect time).
 */
export function createDataSourceOptions(database: DatabaseOptions, app: AppDataSourceDefinition): DataSourceOptions {
  assertSchemaName(app.schema);
  const common = {
    type: 'postgres' as const,
    schema: app.schema,
    entities: app.entities,
    migrations: app.migrations,
    migrationsTableName: MIGRATIONS_TABLE,
    migrationsRun: false,
    migrationsTransactionMode: 'all' as const,
    synchronize: false,
    namingStrategy: new SnakeNamingStrategy(),
    logging: ['error', 'warn'] as Array<'error' | 'warn'>,
  };
  if (database.kind === 'postgres') {
    return { ...common, url: database.url, applicationName: app.applicationName ?? app.schema, poolSize: 10 };
  }
  // PGlite has no extension installer worth trying; nothing here needs uuid-ossp.
  return { ...common, driver: sharedPGliteDriver(database.dataDir, database.onClosed), installExtensions: false };
}
