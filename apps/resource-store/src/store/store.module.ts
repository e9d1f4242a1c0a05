import { Module } from '@nestjs/common';
import { PromptsRepository } from '../prompts/prompts.repository';
import { ResourceTemplatesRepository } from '../resources/resource-templates.repository';
import { ResourcesRepository } from '../resources/resources.repository';
import { UploadRepository } from '../resources/upload.repository';
import { TenantContentRepository } from './tenant-content.repository';

const REPOSITORIES = [ResourcesRepository, ResourceTemplatesRepository, UploadRepository, PromptsRepository, TenantContentRepository];

/**
 * The store's tables behind tenant-scoped repositories, one per aggregate (each beside its feature), and
 * the tenant deletion that spans them. Provided here once, on the store's connection, for every feature
 * module that imports this one (completion reads resources, templates and prompts).
 */
@Module({ providers: REPOSITORIES, exports: REPOSITORIES })
export class StoreModule {}
