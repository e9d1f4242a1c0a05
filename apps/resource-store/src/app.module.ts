import { Module, type DynamicModule } from '@nestjs/common';
import { MessagingModule, type MessagingOptions } from '@mcp-platform/shared-messaging';
import { HealthModule, LoggingModule } from '@mcp-platform/shared-observability';
import type { ResourceStoreEnv } from './config/env.schema';
import { ResourceStoreModule } from './resource-store.module';

/** The resource store as its own process (distributed mode). */
@Module({})
export class AppModule {
  static forRoot(env: ResourceStoreEnv, messaging: MessagingOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forRoot({ name: 'resource-store', level: env.LOG_LEVEL }),
        MessagingModule.forRoot(messaging),
        HealthModule.forRoot(),
        ResourceStoreModule.register(),
      ],
    };
  }
}
