import { type DynamicModule, Module } from '@nestjs/common';
import { MessagingModule, type MessagingOptions } from '@mcp-platform/shared-messaging';
import { HealthModule, LoggingModule } from '@mcp-platform/shared-observability';
import { databaseHealthChecks } from '@mcp-platform/shared-persistence';
import type { ResourceStoreEnv } from './config/env.schema';
import { RESOURCE_STORE_CONNECTION } from './resource-store.constants';
import { ResourceStoreModule } from './resource-store.module';

/** The resource store as its own process (distributed mode). */
@Module({})
export class AppModule {
  static forRoot(env: ResourceStoreEnv, messaging: MessagingOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forRoot({ name: 'resource-store', level: env.LOG_LEVEL, format: env.LOG_FORMAT }),
        MessagingModule.forRoot(messaging),
        HealthModule.forRoot({ checks: databaseHealthChecks([RESOURCE_STORE_CONNECTION]) }),
        ResourceStoreModule.register({
          database: { kind: 'postgres', url: env.DATABASE_URL },
          seed: env.SEED,
          tenantQuotaBytes: env.RESOURCE_STORE_TENANT_QUOTA_BYTES,
          maxResourceBytes: env.RESOURCE_STORE_MAX_RESOURCE_BYTES,
          readCacheEntries: env.RESOURCE_STORE_READ_CACHE_ENTRIES,
        }),
      ],
    };
  }
}
