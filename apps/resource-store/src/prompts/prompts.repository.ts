import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type Repository } from 'typeorm';
import type { Prompt } from '@mcp-platform/protocol-mcp';
import { RESOURCE_STORE_CONNECTION } from '../resource-store.constants';
import { deleteReturningServers, onServer, optional, page, upsertByKey, upstreamOriginOf, type WriteOutcome } from '../store/rows';
import type { PromptDefinition, UpstreamOrigin } from '../store/store.types';

/** A prompt a server serves: its definition, and where it comes from when it is an upstream item. */
export type ServedPrompt = PromptDefinition & { upstream?: UpstreamOrigin };
import { PromptEntity } from './prompt.entity';

/**
 * The tenants' prompts behind domain types, by name. Every query names its tenant (DESIGN.md §6) and,
 * for the MCP side, the virtual server (a row with `servers = []` is on every server of its tenant).
 * Lists leave the messages out.
 */
@Injectable()
export class PromptsRepository {
  private readonly prompts: Repository<PromptEntity>;

  constructor(@InjectDataSource(RESOURCE_STORE_CONNECTION) dataSource: DataSource) {
    this.prompts = dataSource.getRepository(PromptEntity);
  }

  /** Up to `limit` prompts of the server after `after` (by name), without their messages. */
  async listPrompts(tenant: string, server: string, after: string | undefined, limit: number): Promise<Prompt[]> {
    const rows = await page(onServer(this.prompts.createQueryBuilder('p'), tenant, server), 'p.name', after, limit).getMany();
    return rows.map(toPrompt);
  }

  /** One prompt of the server with its messages; an upstream one says where it comes from (its render and completions go to the executor). */
  async findPrompt(tenant: string, server: string, name: string): Promise<ServedPrompt | undefined> {
    const row = await onServer(this.prompts.createQueryBuilder('p'), tenant, server).addSelect('p.messages').andWhere('p.name = :name', { name }).getOne();
    return row ? { ...toPromptDefinition(row), ...optional('upstream', row.upstream) } : undefined;
  }

  /** The source of the tenant's upstream prompt `name`; `undefined` when none holds the name (the write paths refuse to touch one). */
  async upstreamOrigin(tenant: string, name: string): Promise<UpstreamOrigin | undefined> {
    return upstreamOriginOf(this.prompts, tenant, { name });
  }

  /** One of the tenant's own prompts with its messages, whatever server exposes it (the write path compares with it, the admin API shows it). */
  async findTenantPrompt(tenant: string, name: string): Promise<PromptDefinition | undefined> {
    const row = await this.prompts
      .createQueryBuilder('p')
      .addSelect('p.messages')
      .where('p.tenant = :tenant', { tenant })
      .andWhere('p.name = :name', { name })
      .andWhere('p.upstream IS NULL')
      .getOne();
    return row ? toPromptDefinition(row) : undefined;
  }

  /** Every prompt of the tenant's own with its messages, by name (the admin list; upstream items are the executor's to show). */
  async tenantPrompts(tenant: string): Promise<PromptDefinition[]> {
    const query = this.prompts.createQueryBuilder('p').addSelect('p.messages').where('p.tenant = :tenant', { tenant }).andWhere('p.upstream IS NULL');
    const rows = await query.orderBy('p.name', 'ASC').getMany();
    return rows.map(toPromptDefinition);
  }

  /** Deletes the tenant's prompt `name`; the servers that exposed it, or `undefined` when there was none. */
  async deletePrompt(tenant: string, name: string): Promise<string[] | undefined> {
    return deleteReturningServers(this.prompts, tenant, { name });
  }

  /** Creates or replaces the prompt named `prompt.name`. */
  async writePrompt(tenant: string, prompt: PromptDefinition): Promise<WriteOutcome> {
    const values = {
      title: prompt.title ?? null,
      description: prompt.description,
      icons: (prompt.icons as Record<string, unknown>[] | undefined) ?? null,
      arguments: prompt.arguments,
      inputs: prompt.inputs,
      messages: prompt.messages,
      servers: prompt.servers,
    };
    return upsertByKey(this.prompts, tenant, { name: prompt.name }, values);
  }
}

function toPrompt(row: PromptEntity): Prompt {
  return {
    name: row.name,
    ...optional('title', row.title),
    ...optional('description', row.description),
    ...optional('icons', row.icons as Prompt['icons']),
    arguments: row.arguments.map((argument) => ({
      name: argument.name,
      ...optional('description', argument.description),
      ...optional('required', argument.required),
    })),
  };
}

function toPromptDefinition(row: PromptEntity): PromptDefinition {
  return {
    name: row.name,
    ...optional('title', row.title),
    // Only an upstream prompt has none; the store's own always do.
    description: row.description ?? '',
    ...optional('icons', row.icons as Prompt['icons']),
    arguments: row.arguments,
    inputs: row.inputs,
    messages: row.messages,
    servers: row.servers,
  };
}
