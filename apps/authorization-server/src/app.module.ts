import { Module, type DynamicModule } from '@nestjs/common';
import { MessagingModule, type MessagingOptions } from '@mcp-platform/shared-messaging';
import { HealthModule, LoggingModule } from '@mcp-platform/shared-observability';
import type { AuthorizationServerEnv } from './config/env.schema';
import { AuthorizationServerModule } from './authorization-server.module';

/** The authorization server as its own process (distributed mode). */
@Module({})
export class AppModule {
  static forRoot(env: AuthorizationServerEnv, messaging: MessagingOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forRoot({ name: 'authorization-server', level: env.LOG_LEVEL }),
        MessagingModule.forRoot(messaging),
        HealthModule.forRoot(),
        AuthorizationServerModule.register(),
      ],
    };
  }
}
