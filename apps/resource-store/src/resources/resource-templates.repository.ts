import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, IsNull, type Repository } from 'typeorm';
import type { ResourceTemplate } from '@mcp-platform/protocol-mcp';
import { RESOURCE_STORE_CONNECTION } from '../resource-store.constants';
import { deleteReturningServers, onServer, optional, page, upsertByKey, upstreamOriginOf, type WriteOutcome } from '../store/rows';
import type { ResourceTemplateDefinition, UpstreamOrigin } from '../store/store.types';

/** A template a server serves: its definition, and where it comes from when it is an upstream item. */
export type ServedTemplate = ResourceTemplateDefinition & { upstream?: UpstreamOrigin };
import { ResourceTemplateEntity } from './resource-template.entity';

/**
 * The tenants' resource templates behind domain types, by name. Every query names its tenant
 * (DESIGN.md §6) and, for the MCP side, the virtual server (a row with `servers = []` is on every
 * server of its tenant).
 */
@Injectable()
export class ResourceTemplatesRepository {
  private readonly templates: Repository<ResourceTemplateEntity>;

  constructor(@InjectDataSource(RESOURCE_STORE_CONNECTION) dataSource: DataSource) {
    this.templates = dataSource.getRepository(ResourceTemplateEntity);
  }

  /** Up to `limit` templates of the server after `after` (by name). */
  async listTemplates(tenant: string, server: string, after: string | undefined, limit: number): Promise<ResourceTemplate[]> {
    const rows = await page(onServer(this.templates.createQueryBuilder('t'), tenant, server), 't.name', after, limit).getMany();
    return rows.map(toResourceTemplate);
  }

  /**
   * Every template of the server with its recipe, by name: the candidates of a read or a completion.
   * An upstream one says where it comes from (`upstream`): its reads and completions go to the executor.
   */
  async serverTemplates(tenant: string, server: string): Promise<ServedTemplate[]> {
    const rows = await onServer(this.templates.createQueryBuilder('t'), tenant, server).orderBy('t.name', 'ASC').getMany();
    return rows.map((row) => ({ ...toTemplateDefinition(row), ...optional('upstream', row.upstream) }));
  }

  /** One of the tenant's own templates, whatever server exposes it (the write path compares with it, the admin API shows it). */
  async findTenantTemplate(tenant: string, name: string): Promise<ResourceTemplateDefinition | undefined> {
    const row = await this.templates.findOneBy({ tenant, name, upstream: IsNull() });
    return row ? toTemplateDefinition(row) : undefined;
  }

  /** The source of the tenant's upstream template `name`; `undefined` when none holds the name (the write paths refuse to touch one). */
  async upstreamOrigin(tenant: string, name: string): Promise<UpstreamOrigin | undefined> {
    return upstreamOriginOf(this.templates, tenant, { name });
  }

  /** Creates or replaces the template named `template.name`. */
  async writeTemplate(tenant: string, template: ResourceTemplateDefinition): Promise<WriteOutcome> {
    const values = {
      uriTemplate: template.uriTemplate,
      title: template.title ?? null,
      description: template.description ?? null,
      mimeType: template.mimeType ?? null,
      annotations: (template.annotations as Record<string, unknown> | undefined) ?? null,
      icons: (template.icons as Record<string, unknown>[] | undefined) ?? null,
      textRecipe: template.text,
      completions: template.completions,
      servers: template.servers,
    };
    return upsertByKey(this.templates, tenant, { name: template.name }, values);
  }

  /** Every template of the tenant's own with its recipe, by name (the admin list; upstream items are the executor's to show). */
  async tenantTemplates(tenant: string): Promise<ResourceTemplateDefinition[]> {
    const query = this.templates.createQueryBuilder('t').where('t.tenant = :tenant', { tenant }).andWhere('t.upstream IS NULL');
    const rows = await query.orderBy('t.name', 'ASC').getMany();
    return rows.map(toTemplateDefinition);
  }

  /** Deletes the tenant's template `name`; the servers that exposed it, or `undefined` when there was none. */
  async deleteTemplate(tenant: string, name: string): Promise<string[] | undefined> {
    return deleteReturningServers(this.templates, tenant, { name });
  }
}

function toResourceTemplate(row: ResourceTemplateEntity): ResourceTemplate {
  return {
    uriTemplate: row.uriTemplate,
    name: row.name,
    ...optional('title', row.title),
    ...optional('description', row.description),
    ...optional('mimeType', row.mimeType),
    ...optional('annotations', row.annotations as ResourceTemplate['annotations']),
    ...optional('icons', row.icons as ResourceTemplate['icons']),
  };
}

function toTemplateDefinition(row: ResourceTemplateEntity): ResourceTemplateDefinition {
  return { ...toResourceTemplate(row), text: row.textRecipe, completions: row.completions, servers: row.servers };
}
