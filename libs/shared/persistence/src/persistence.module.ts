import { type DynamicModule, Logger, Module } from '@nestjs/common';
import { getDataSourceToken, TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { type AppDataSourceDefinition, createDataSourceOptions } from './data-source.factory';
import type { DatabaseOptions } from './database.options';
import { runMigrations } from './migration.runner';

export interface PersistenceAppOptions extends AppDataSourceDefinition {
  /** Connection name, unique in the process (the app's name); inject with `@InjectDataSource(name)`. */
  name: string;
  database: DatabaseOptions;
}

/**
 * One app's DataSource as a named `@nestjs/typeorm` connection, so several apps live in one process
 * (embedded mode). The DataSource is initialized and migrated before anything can inject it.
 */
@Module({})
export class PersistenceModule {
  static forApp(options: PersistenceAppOptions): DynamicModule {
    const logger = new Logger(`Persistence:${options.name}`);
    return {
      module: PersistenceModule,
      imports: [
        TypeOrmModule.forRootAsync({
          name: options.name,
          useFactory: () => ({
            ...createDataSourceOptions(options.database, options),
            // @nestjs/typeorm finds the DataSource to destroy at shutdown by the name in these options.
            name: options.name,
            // A refused connection at boot is retried a little; a wrong schema or migration is not.
            retryAttempts: options.database.kind === 'postgres' ? 5 : 0,
            retryDelay: 1_000,
          }),
          dataSourceFactory: async (dataSourceOptions) => {
            if (!dataSourceOptions) throw new Error(`no DataSource options for ${options.name}`);
            const dataSource = await new DataSource(dataSourceOptions).initialize();
            try {
              const { applied } = await runMigrations(dataSource, options.schema);
              if (applied.length) logger.log(`applied migrations: ${applied.join(', ')}`);
            } catch (error) {
              await dataSource.destroy();
              throw error;
            }
            return dataSource;
          },
        }),
      ],
      exports: [TypeOrmModule],
    };
  }

  /** The injection token of a named connection's DataSource. */
  static dataSourceToken(name: string): string {
    return getDataSourceToken(name) as string;
  }
}
