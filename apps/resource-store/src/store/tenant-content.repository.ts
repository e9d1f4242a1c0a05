import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { PromptEntity } from '../prompts/prompt.entity';
import { RESOURCE_STORE_CONNECTION } from '../resource-store.constants';
import { ResourceEntity } from '../resources/resource.entity';
import { ResourceTemplateEntity } from '../resources/resource-template.entity';
import { SkillEntity } from '../skills/skill.entity';

/**
 * A deleted tenant's catalog across the aggregates (resources, templates, prompts, skills): the one write that
 * spans them, so it stays here rather than in one feature's repository. Uploads in progress are the
 * upload repository's (`UploadRepository.deleteTenant`).
 */
@Injectable()
export class TenantContentRepository {
  constructor(@InjectDataSource(RESOURCE_STORE_CONNECTION) private readonly dataSource: DataSource) {}

  /**
   * Deletes every resource (skill files included), resource template, prompt and skill of the tenant, in
   * one transaction (the tenant was deleted); how many of each.
   */
  async deleteTenantContent(tenant: string): Promise<{ resources: number; resourceTemplates: number; prompts: number; skills: number }> {
    return this.dataSource.transaction(async (manager) => {
      const deleteAll = async (entity: typeof ResourceEntity | typeof ResourceTemplateEntity | typeof PromptEntity | typeof SkillEntity): Promise<number> => {
        const result = await manager.createQueryBuilder().delete().from(entity).where('tenant = :tenant', { tenant }).returning('id').execute();
        return ((result.raw ?? []) as unknown[]).length;
      };
      return {
        resources: await deleteAll(ResourceEntity),
        resourceTemplates: await deleteAll(ResourceTemplateEntity),
        prompts: await deleteAll(PromptEntity),
        skills: await deleteAll(SkillEntity),
      };
    });
  }
}
