import { type DynamicModule, Module } from '@nestjs/common';
import { BuiltinModule } from '../builtin/builtin.module';
import { CatalogModule } from '../catalog/catalog.module';
import { HttpToolsModule } from '../http-tools/http-tools.module';
import type { ToolExecutorOptions } from '../tool-executor.options';
import { CallsService } from './calls.service';
import { ToolsNatsController } from './tools.nats.controller';
import { ToolsService } from './tools.service';

/** tools/list, tools/call, describeToolCall, virtual server look-ups and cancellation, served on the bus. */
@Module({})
export class ToolsModule {
  static register(http: ToolExecutorOptions['http'], upstreams: DynamicModule): DynamicModule {
    return {
      module: ToolsModule,
      imports: [CatalogModule, BuiltinModule, HttpToolsModule.register(http), upstreams],
      controllers: [ToolsNatsController],
      providers: [ToolsService, CallsService],
      // The task worker runs tasks' calls through the same service, so cancellation reaches them.
      exports: [CallsService],
    };
  }
}
