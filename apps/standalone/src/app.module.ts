import { type DynamicModule, Module } from '@nestjs/common';
import { AUTHORIZATION_SERVER_CONNECTION, AuthorizationServerModule, type AuthorizationServerOptions } from '@mcp-platform/authorization-server';
import { RESOURCE_STORE_CONNECTION, ResourceStoreModule, type ResourceStoreOptions } from '@mcp-platform/resource-store';
import { SessionBrokerModule, type SessionBrokerOptions } from '@mcp-platform/session-broker';
import { MessagingModule, type MessagingOptions } from '@mcp-platform/shared-messaging';
import { HealthModule, LoggingModule, type LoggingOptions } from '@mcp-platform/shared-observability';
import { databaseHealthChecks } from '@mcp-platform/shared-persistence';
import { TASK_SCHEDULER_CONNECTION, TaskSchedulerModule, type TaskSchedulerOptions } from '@mcp-platform/task-scheduler';
import { TOOL_EXECUTOR_CONNECTION, ToolExecutorModule, type ToolExecutorOptions } from '@mcp-platform/tool-executor';

/** Everything the embedded host needs to compose the five apps in one process. */
export interface EmbeddedPlatformOptions {
  logLevel: LoggingOptions['level'];
  logFormat?: LoggingOptions['format'];
  /** In-process messaging: one hub and one set of buckets shared by the five apps. */
  messaging: MessagingOptions;
  broker: SessionBrokerOptions;
  authorizationServer: AuthorizationServerOptions;
  toolExecutor: ToolExecutorOptions;
  resourceStore: ResourceStoreOptions;
  taskScheduler: TaskSchedulerOptions;
}

/**
 * The embedded platform (DESIGN.md §5): the five apps' feature modules in one Nest application, on
 * the in-process bus and PGlite. Each module is the same one its own process registers, so both modes
 * run the same code.
 */
@Module({})
export class AppModule {
  static forRoot(options: EmbeddedPlatformOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forRoot({ name: 'standalone', level: options.logLevel, format: options.logFormat }),
        MessagingModule.forRoot(options.messaging),
        // Ready means every app's database connection answers too, as in the apps' own processes.
        HealthModule.forRoot({
          checks: databaseHealthChecks([TOOL_EXECUTOR_CONNECTION, AUTHORIZATION_SERVER_CONNECTION, RESOURCE_STORE_CONNECTION, TASK_SCHEDULER_CONNECTION]),
        }),
        AuthorizationServerModule.register(options.authorizationServer),
        ResourceStoreModule.register(options.resourceStore),
        TaskSchedulerModule.register(options.taskScheduler),
        ToolExecutorModule.register(options.toolExecutor),
        SessionBrokerModule.register(options.broker),
      ],
    };
  }
}
