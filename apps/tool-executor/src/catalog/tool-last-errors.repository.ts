import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource, Repository } from 'typeorm';
import { TOOL_EXECUTOR_CONNECTION } from '../tool-executor.constants';
import type { ToolLastError } from './catalog.types';
import { TenantEntity } from './tenant.entity';
import { ToolEntity } from './tool.entity';
import { ToolLastErrorEntity } from './tool-last-error.entity';

/** Longest `detail` kept: a failure's description, never a body. */
export const MAX_TOOL_ERROR_DETAIL_CHARS = 2_000;

/** The last outbound failure of each tool: one row per tool, replaced by the next, gone with the tool. */
@Injectable()
export class ToolLastErrorsRepository {
  private readonly errors: Repository<ToolLastErrorEntity>;

  constructor(@InjectDataSource(TOOL_EXECUTOR_CONNECTION) dataSource: DataSource) {
    this.errors = dataSource.getRepository(ToolLastErrorEntity);
  }

  /** Replaces the tool's last failure; a tool deleted meanwhile has none to keep (its row went, nothing is written). */
  async save(toolId: string, error: ToolLastError): Promise<void> {
    await this.errors
      .createQueryBuilder()
      .insert()
      .values({ toolId, occurredAt: error.at, errorId: error.errorId, kind: error.kind, detail: error.detail.slice(0, MAX_TOOL_ERROR_DETAIL_CHARS) })
      .orUpdate(['occurred_at', 'error_id', 'kind', 'detail'], ['tool_id'])
      .execute()
      .catch((failure: unknown) => {
        // The tool was deleted between the call and this write: nothing to record.
        if ((failure as { driverError?: { code?: string } }).driverError?.code === FOREIGN_KEY_VIOLATION) return;
        throw failure;
      });
  }

  /** The last failure of every tool of the tenant that has one, by tool id. */
  async forTenant(tenant: string): Promise<Map<string, ToolLastError>> {
    const rows = await this.errors
      .createQueryBuilder('error')
      .innerJoin(ToolEntity, 'tool', 'tool.id = error.tool_id')
      .innerJoin(TenantEntity, 'tenant', 'tenant.id = tool.tenant_id')
      .where('tenant.slug = :tenant', { tenant })
      .getMany();
    return new Map(rows.map((row) => [row.toolId, { at: row.occurredAt, errorId: row.errorId, kind: row.kind, detail: row.detail }]));
  }
}

/** PostgreSQL's `foreign_key_violation`. */
const FOREIGN_KEY_VIOLATION = '23503';
