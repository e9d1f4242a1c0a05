import { type DynamicModule, Module } from '@nestjs/common';
import { READ_CACHE_MAX_BYTES, READ_CACHE_MAX_ENTRY_BYTES, READ_CACHE_TTL_MS } from '../resource-store.constants';
import { RESOURCE_LIMITS, type ResourceLimits } from '../resource-store.options';
import { StoreModule } from '../store/store.module';
import { UpstreamCallsModule } from '../upstream-items/upstream-calls.module';
import { ResourceAdminNatsController } from './resource-admin.nats.controller';
import { ResourceReadCache } from './resource-read.cache';
import { ResourceReadCacheNatsController } from './resource-read-cache.nats.controller';
import { ResourceUploadNatsController } from './resource-upload.nats.controller';
import { ResourceUploadsService } from './resource-uploads.service';
import { ResourcesNatsController } from './resources.nats.controller';
import { ResourcesService } from './resources.service';
import { TenantContentService } from './tenant-content.service';

/**
 * Resources and resource templates: listing, reading (in chunks when large; small reads from a per-replica
 * cache), writing and uploading within the limits; and a deleted tenant's whole content (prompts too) going with it.
 */
@Module({})
export class ResourcesModule {
  static register(limits: ResourceLimits, readCache: { entries: number }): DynamicModule {
    return {
      module: ResourcesModule,
      imports: [StoreModule, UpstreamCallsModule],
      controllers: [ResourcesNatsController, ResourceAdminNatsController, ResourceUploadNatsController, ResourceReadCacheNatsController],
      providers: [
        ResourcesService,
        ResourceUploadsService,
        TenantContentService,
        { provide: RESOURCE_LIMITS, useValue: limits },
        {
          provide: ResourceReadCache,
          useFactory: () =>
            new ResourceReadCache({
              maxEntries: readCache.entries,
              maxBytes: READ_CACHE_MAX_BYTES,
              maxEntryBytes: READ_CACHE_MAX_ENTRY_BYTES,
              ttlMs: READ_CACHE_TTL_MS,
            }),
        },
      ],
      exports: [ResourcesService, ResourceReadCache, RESOURCE_LIMITS],
    };
  }
}
