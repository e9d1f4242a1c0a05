import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, type ObjectLiteral, type Repository } from 'typeorm';
import { PromptEntity } from '../prompts/prompt.entity';
import { RESOURCE_STORE_CONNECTION } from '../resource-store.constants';
import { ResourceEntity } from '../resources/resource.entity';
import { ResourceTemplateEntity } from '../resources/resource-template.entity';
import { SkillEntity } from '../skills/skill.entity';
import type { UpstreamOrigin } from '../store/store.types';
import { lockTenantQuota } from '../store/tenant-quota';
import {
  type KeyHolders,
  planUpstreamItems,
  requestedKeys,
  type UpstreamItemsPlan,
  type UpstreamItemsRequest,
  type UpstreamPromptRow,
  type UpstreamResourceRow,
  type UpstreamRows,
  type UpstreamTemplateRow,
} from './upstream-items.plan';
import type { UpstreamSkillRow } from './upstream-skills.plan';

/** Rows per INSERT: a source's 1 000 items of a kind take ten statements, each well under PostgreSQL's parameter limit. */
const INSERT_BATCH = 100;

/**
 * The rows of the tenants' upstream items, across the four tables they live in (prompts, resources,
 * resource templates, skills), replaced per source in one transaction. The tenant's lock (the one every resource
 * write and upload commit takes) serializes it with the other sources' puts and the uploads, so two
 * sources never both take a name, and an upload never lands on a URI a source took meanwhile.
 */
@Injectable()
export class UpstreamItemsRepository {
  constructor(@InjectDataSource(RESOURCE_STORE_CONNECTION) private readonly dataSource: DataSource) {}

  /** Plans the request against the stored rows and writes the kinds that changed; the plan. */
  async replaceSource(request: UpstreamItemsRequest): Promise<UpstreamItemsPlan> {
    return this.dataSource.transaction(async (manager) => {
      await lockTenantQuota(manager, request.tenant);
      const repositories = {
        prompts: manager.getRepository(PromptEntity),
        resources: manager.getRepository(ResourceEntity),
        resourceTemplates: manager.getRepository(ResourceTemplateEntity),
        skills: manager.getRepository(SkillEntity),
      };
      const keys = requestedKeys(request);
      const holders: KeyHolders = {
        prompts: await otherHolders(repositories.prompts, request, 'name', keys.prompts),
        resources: await otherHolders(repositories.resources, request, 'uri', keys.resources),
        resourceTemplates: await otherHolders(repositories.resourceTemplates, request, 'name', keys.resourceTemplates),
        skills: await otherHolders(repositories.skills, request, 'name', keys.skills),
      };
      const plan = planUpstreamItems(request, await this.sourceRows(manager, request), holders);
      if (plan.changes.prompts.changed) {
        await replaceRows(repositories.prompts, request, plan.rows.prompts, (row) => ({ ...row, inputs: [], messages: [] }));
      }
      if (plan.changes.resources.changed) {
        await replaceRows(repositories.resources, request, plan.rows.resources, (row) => ({ ...row, size: 0, text: null, blob: null, skill: null }));
      }
      if (plan.changes.resourceTemplates.changed) {
        await replaceRows(repositories.resourceTemplates, request, plan.rows.resourceTemplates, (row) => ({ ...row, textRecipe: '', completions: {} }));
      }
      if (plan.changes.skills.changed) await replaceRows(repositories.skills, request, plan.rows.skills, (row) => row);
      return plan;
    });
  }

  /** The source's rows as the plan compares them. */
  private async sourceRows(manager: EntityManager, request: UpstreamItemsRequest): Promise<UpstreamRows> {
    const prompts = await ofSource(manager.getRepository(PromptEntity), request, 'name');
    const resources = await ofSource(manager.getRepository(ResourceEntity), request, 'uri');
    const templates = await ofSource(manager.getRepository(ResourceTemplateEntity), request, 'name');
    const skills = await ofSource(manager.getRepository(SkillEntity), request, 'name');
    return {
      prompts: prompts.map((row): UpstreamPromptRow => ({
        name: row.name,
        title: row.title,
        description: row.description,
        icons: row.icons,
        arguments: row.arguments.map(({ name, description, required }) => ({
          name,
          ...(description === undefined ? {} : { description }),
          ...(required === undefined ? {} : { required }),
        })),
        servers: row.servers,
        upstream: row.upstream as UpstreamOrigin,
      })),
      resources: resources.map((row): UpstreamResourceRow => ({
        uri: row.uri,
        name: row.name,
        title: row.title,
        description: row.description,
        mimeType: row.mimeType,
        annotations: row.annotations,
        icons: row.icons,
        servers: row.servers,
        upstream: row.upstream as UpstreamOrigin,
      })),
      resourceTemplates: templates.map((row): UpstreamTemplateRow => ({
        name: row.name,
        uriTemplate: row.uriTemplate,
        title: row.title,
        description: row.description,
        mimeType: row.mimeType,
        annotations: row.annotations,
        icons: row.icons,
        servers: row.servers,
        upstream: row.upstream as UpstreamOrigin,
      })),
      skills: skills.map((row): UpstreamSkillRow => ({
        name: row.name,
        frontmatter: row.frontmatter,
        files: row.files,
        size: row.size,
        servers: row.servers,
        upstream: row.upstream as UpstreamOrigin,
      })),
    };
  }
}

type UpstreamTable = ObjectLiteral & { id: string; tenant: string; upstream: UpstreamOrigin | null };

/** The source's rows of one table, by key. */
function ofSource<T extends UpstreamTable>(repository: Repository<T>, request: UpstreamItemsRequest, key: 'name' | 'uri'): Promise<T[]> {
  return repository
    .createQueryBuilder('row')
    .where('row.tenant = :tenant', { tenant: request.tenant })
    .andWhere(`row.upstream ->> 'sourceId' = :sourceId`, { sourceId: request.sourceId })
    .orderBy(`row.${key}`, 'ASC')
    .getMany();
}

/** Who else holds each of `keys` in the tenant (`null`: the tenant's own item; else the other source). */
async function otherHolders<T extends UpstreamTable>(
  repository: Repository<T>,
  request: UpstreamItemsRequest,
  key: 'name' | 'uri',
  keys: string[],
): Promise<Map<string, UpstreamOrigin | null>> {
  const holders = new Map<string, UpstreamOrigin | null>();
  if (keys.length === 0) return holders;
  const rows = await repository
    .createQueryBuilder('row')
    .select(`row.${key}`, 'key')
    .addSelect('row.upstream', 'upstream')
    .where('row.tenant = :tenant', { tenant: request.tenant })
    .andWhere(`row.${key} IN (:...keys)`, { keys })
    .andWhere(`(row.upstream IS NULL OR row.upstream ->> 'sourceId' <> :sourceId)`, { sourceId: request.sourceId })
    .getRawMany<{ key: string; upstream: UpstreamOrigin | null }>();
  for (const row of rows) holders.set(row.key, row.upstream);
  return holders;
}

/** Deletes the source's rows of one table and inserts `rows` (with the content-free columns `complete` adds). */
async function replaceRows<T extends UpstreamTable, R extends object>(
  repository: Repository<T>,
  request: UpstreamItemsRequest,
  rows: R[],
  complete: (row: R) => object,
): Promise<void> {
  await repository
    .createQueryBuilder()
    .delete()
    .where('tenant = :tenant', { tenant: request.tenant })
    .andWhere(`upstream ->> 'sourceId' = :sourceId`, { sourceId: request.sourceId })
    .execute();
  for (let start = 0; start < rows.length; start += INSERT_BATCH) {
    const batch = rows.slice(start, start + INSERT_BATCH).map((row) => ({ ...complete(row), id: randomUUID(), tenant: request.tenant }));
    await repository.insert(batch as unknown as Parameters<Repository<T>['insert']>[0]);
  }
}
