import { Module, type DynamicModule } from '@nestjs/common';
import { RESOURCE_LIMITS, type ResourceLimits } from '../resource-store.options';
import { StoreModule } from '../store/store.module';
import { ResourceAdminNatsController } from './resource-admin.nats.controller';
import { ResourceUploadNatsController } from './resource-upload.nats.controller';
import { ResourceUploadsService } from './resource-uploads.service';
import { ResourcesNatsController } from './resources.nats.controller';
import { ResourcesService } from './resources.service';

/** Resources and resource templates: listing, reading (in chunks when large), writing and uploading within the limits. */
@Module({})
export class ResourcesModule {
  static register(limits: ResourceLimits): DynamicModule {
    return {
      module: ResourcesModule,
      imports: [StoreModule],
      controllers: [ResourcesNatsController, ResourceAdminNatsController, ResourceUploadNatsController],
      providers: [ResourcesService, ResourceUploadsService, { provide: RESOURCE_LIMITS, useValue: limits }],
      exports: [ResourcesService],
    };
  }
}
