import { Module } from '@nestjs/common';
import { IdSource, RandomIds } from '@mcp-platform/shared-clock';
import { BuiltinModule } from '../builtin/builtin.module';
import { CatalogNatsController } from './catalog.nats.controller';
import { CatalogRepository } from './catalog.repository';
import { CatalogService } from './catalog.service';
import { CatalogPublisher } from './catalog-publisher';
import { ToolLastErrorsRepository } from './tool-last-errors.repository';

/** Tenants, virtual servers and tools: tables, repositories (the catalog, the tools' last failures) and the in-memory snapshot. */
@Module({
  imports: [BuiltinModule],
  controllers: [CatalogNatsController],
  providers: [CatalogRepository, ToolLastErrorsRepository, CatalogService, CatalogPublisher, { provide: IdSource, useClass: RandomIds }],
  exports: [CatalogRepository, ToolLastErrorsRepository, CatalogService, CatalogPublisher],
})
export class CatalogModule {}
