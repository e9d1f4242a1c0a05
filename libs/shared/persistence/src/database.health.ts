import type { Provider } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { HEALTH_CHECKS, type ReadinessCheck } from '@mcp-platform/shared-observability';

/** A readiness check that the app's database answers `SELECT 1`. */
export function databaseReadinessCheck(dataSource: DataSource, name = 'database'): ReadinessCheck {
  return {
    name,
    async check(): Promise<void> {
      await dataSource.query('SELECT 1');
    },
  };
}

/**
 * The `HEALTH_CHECKS` provider for `HealthModule.forRoot({ checks })`: readiness of the named
 * connections registered with `PersistenceModule.forApp`.
 */
export function databaseHealthChecks(connectionNames: string[]): Provider {
  return {
    provide: HEALTH_CHECKS,
    inject: connectionNames.map((name) => getDataSourceToken(name)),
    useFactory: (...dataSources: DataSource[]): ReadinessCheck[] =>
      dataSources.map((dataSource, index) => databaseReadinessCheck(dataSource, `database:${connectionNames[index] ?? index}`)),
  };
}
