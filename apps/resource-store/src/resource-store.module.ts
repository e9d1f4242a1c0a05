import { Module, type DynamicModule } from '@nestjs/common';

/**
 * Resources and resource templates per tenant, prompts and completion, with their change events
 * (DESIGN.md §3). Its features arrive with the resources issue; today it is a bootable service on the
 * bus with health probes.
 */
@Module({})
export class ResourceStoreModule {
  static register(): DynamicModule {
    return { module: ResourceStoreModule };
  }
}
