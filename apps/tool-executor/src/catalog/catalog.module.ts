import { Module } from '@nestjs/common';
import { BuiltinModule } from '../builtin/builtin.module';
import { CatalogNatsController } from './catalog.nats.controller';
import { CatalogRepository } from './catalog.repository';
import { CatalogService } from './catalog.service';

/** Tenants, virtual servers and tools: tables, repository and the in-memory snapshot. */
@Module({
  imports: [BuiltinModule],
  controllers: [CatalogNatsController],
  providers: [CatalogRepository, CatalogService],
  exports: [CatalogRepository, CatalogService],
})
export class CatalogModule {}
