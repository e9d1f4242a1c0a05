import { Module } from '@nestjs/common';
import { CatalogModule } from '../catalog/catalog.module';
import { CatalogAdminNatsController } from './catalog-admin.nats.controller';
import { CatalogAdminService } from './catalog-admin.service';

/** Tenants, tools and virtual servers as administrators write them, served on the bus. */
@Module({
  imports: [CatalogModule],
  controllers: [CatalogAdminNatsController],
  providers: [CatalogAdminService],
})
export class CatalogAdminModule {}
