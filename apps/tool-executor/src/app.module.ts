import { type DynamicModule, Module } from '@nestjs/common';
import { MessagingModule, type MessagingOptions } from '@mcp-platform/shared-messaging';
import { HealthModule, LoggingModule } from '@mcp-platform/shared-observability';
import { databaseHealthChecks } from '@mcp-platform/shared-persistence';
import { type ToolExecutorEnv, upstreamOptionsOf } from './config/env.schema';
import { TOOL_EXECUTOR_CONNECTION } from './tool-executor.constants';
import { ToolExecutorModule } from './tool-executor.module';

/** The tool executor as its own process (distributed mode). */
@Module({})
export class AppModule {
  static forRoot(env: ToolExecutorEnv, messaging: MessagingOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forRoot({ name: 'tool-executor', level: env.LOG_LEVEL, format: env.LOG_FORMAT }),
        MessagingModule.forRoot(messaging),
        HealthModule.forRoot({ checks: databaseHealthChecks([TOOL_EXECUTOR_CONNECTION]) }),
        ToolExecutorModule.register({
          database: { kind: 'postgres', url: env.DATABASE_URL },
          seed: env.SEED_CATALOG,
          http: { allowPrivateNetworks: env.TOOL_HTTP_ALLOW_PRIVATE_NETWORKS },
          upstreams: upstreamOptionsOf(env),
          tasks: { concurrency: env.TASK_WORKER_CONCURRENCY, maxAttempts: env.TASK_MAX_ATTEMPTS, ackWaitMs: env.TASK_ACK_WAIT_MS },
        }),
      ],
    };
  }
}
