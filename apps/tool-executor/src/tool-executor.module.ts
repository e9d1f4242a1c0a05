import { type DynamicModule, Module } from '@nestjs/common';
import { PersistenceModule } from '@mcp-platform/shared-persistence';
import { CATALOG_ENTITIES, CATALOG_MIGRATIONS } from './catalog/catalog.entities';
import { CatalogModule } from './catalog/catalog.module';
import { CatalogAdminModule } from './catalog-admin/catalog-admin.module';
import { SeedModule } from './seed/seed.module';
import { DEFAULT_TASK_WORKER_OPTIONS } from './tasks/tasks.constants';
import { TasksModule } from './tasks/tasks.module';
import { TOOL_EXECUTOR_CONNECTION, TOOL_EXECUTOR_SCHEMA } from './tool-executor.constants';
import type { ToolExecutorOptions } from './tool-executor.options';
import { ToolsModule } from './tools/tools.module';
import { DEFAULT_UPSTREAM_OPTIONS } from './upstreams/upstreams.constants';
import { UpstreamsModule } from './upstreams/upstreams.module';

/**
 * The tool catalog and tool execution (calls, and MCP tasks' runs), transport-agnostic: the app's own process (`AppModule`) and
 * the embedded host (`apps/standalone`) both import it. Needs `MessagingModule` from its host.
 */
@Module({})
export class ToolExecutorModule {
  static register(options: ToolExecutorOptions): DynamicModule {
    // One ToolsModule for the bus handlers and the task worker: a task's call runs, and is cancelled, in the same CallsService.
    // One UpstreamsModule too: the calls and the admin share its connections.
    const upstreams = UpstreamsModule.register({ ...DEFAULT_UPSTREAM_OPTIONS, ...options.upstreams });
    const tools = ToolsModule.register(options.http, upstreams);
    return {
      module: ToolExecutorModule,
      imports: [
        PersistenceModule.forApp({
          name: TOOL_EXECUTOR_CONNECTION,
          schema: TOOL_EXECUTOR_SCHEMA,
          database: options.database,
          entities: CATALOG_ENTITIES,
          migrations: CATALOG_MIGRATIONS,
          applicationName: 'tool-executor',
        }),
        CatalogModule,
        CatalogAdminModule,
        upstreams,
        tools,
        TasksModule.register(options.tasks ?? DEFAULT_TASK_WORKER_OPTIONS, tools),
        SeedModule.register(options.seed),
      ],
    };
  }
}
