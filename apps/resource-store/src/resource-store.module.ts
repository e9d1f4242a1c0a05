import { type DynamicModule, Module } from '@nestjs/common';
import { PersistenceModule } from '@mcp-platform/shared-persistence';
import { CompletionModule } from './completion/completion.module';
import { PromptsModule } from './prompts/prompts.module';
import {
  DEFAULT_MAX_RESOURCE_BYTES,
  DEFAULT_READ_CACHE_ENTRIES,
  DEFAULT_TENANT_QUOTA_BYTES,
  RESOURCE_STORE_CONNECTION,
  RESOURCE_STORE_SCHEMA,
} from './resource-store.constants';
import type { ResourceStoreOptions } from './resource-store.options';
import { ResourcesModule } from './resources/resources.module';
import { SeedModule } from './seed/seed.module';
import { SKILL_LIMITS } from './skills/skill-archive';
import { SkillsModule } from './skills/skills.module';
import { STORE_ENTITIES, STORE_MIGRATIONS } from './store/store.entities';
import { UpstreamItemsModule } from './upstream-items/upstream-items.module';

/**
 * Resources and resource templates per tenant, prompts, completion and skills, with their change events
 * (DESIGN.md §3), and the upstream items the tool executor hands over (issue 15 §3); transport-agnostic: the app's own process (`AppModule`) and the embedded host
 * (`apps/standalone`) both import it. Needs `MessagingModule` from its host.
 */
@Module({})
export class ResourceStoreModule {
  static register(options: ResourceStoreOptions): DynamicModule {
    const resources = ResourcesModule.register(
      {
        tenantQuotaBytes: options.tenantQuotaBytes ?? DEFAULT_TENANT_QUOTA_BYTES,
        maxResourceBytes: options.maxResourceBytes ?? DEFAULT_MAX_RESOURCE_BYTES,
        maxSkillArchiveBytes: SKILL_LIMITS.maxArchiveBytes,
      },
      { entries: options.readCacheEntries ?? DEFAULT_READ_CACHE_ENTRIES },
    );
    const skills = SkillsModule.register(resources);
    return {
      module: ResourceStoreModule,
      imports: [
        PersistenceModule.forApp({
          name: RESOURCE_STORE_CONNECTION,
          schema: RESOURCE_STORE_SCHEMA,
          database: options.database,
          entities: STORE_ENTITIES,
          migrations: STORE_MIGRATIONS,
          applicationName: 'resource-store',
        }),
        resources,
        PromptsModule,
        CompletionModule,
        skills,
        UpstreamItemsModule.register(resources),
        SeedModule.register(options.seed, resources, skills),
      ],
    };
  }
}
