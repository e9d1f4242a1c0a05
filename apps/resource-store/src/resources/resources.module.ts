import { Module, type DynamicModule } from '@nestjs/common';
import { TENANT_QUOTA_BYTES } from '../resource-store.options';
import { StoreModule } from '../store/store.module';
import { ResourceAdminNatsController } from './resource-admin.nats.controller';
import { ResourcesNatsController } from './resources.nats.controller';
import { ResourcesService } from './resources.service';

/** Resources and resource templates: listing, reading and writing within the tenant quota. */
@Module({})
export class ResourcesModule {
  static register(tenantQuotaBytes: number): DynamicModule {
    return {
      module: ResourcesModule,
      imports: [StoreModule],
      controllers: [ResourcesNatsController, ResourceAdminNatsController],
      providers: [ResourcesService, { provide: TENANT_QUOTA_BYTES, useValue: tenantQuotaBytes }],
      exports: [ResourcesService],
    };
  }
}
