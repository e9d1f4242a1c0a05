import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { IdSource } from '@mcp-platform/shared-clock';
import { AUTHORIZATION_SERVER_CONNECTION } from '../../authorization-server.constants';
import { queryRows, table } from '../../authorization-server.sql';

/** A role as stored: its name, description, scopes and the descriptions of some of them. */
export interface StoredRole {
  name: string;
  description: string | null;
  scopes: string[];
  scopeDescriptions: Record<string, string>;
}

interface RoleRow {
  name: string;
  description: string | null;
  scopes: string[] | string;
  scope_descriptions: Record<string, string> | string;
}

/** The roles table, always within one tenant (named by slug). */
@Injectable()
export class RolesRepository {
  constructor(
    @InjectDataSource(AUTHORIZATION_SERVER_CONNECTION) private readonly dataSource: DataSource,
    private readonly ids: IdSource,
  ) {}

  async list(tenant: string): Promise<StoredRole[]> {
    const rows = await queryRows<RoleRow>(
      this.dataSource,
      `SELECT r.name, r.description, r.scopes, r.scope_descriptions FROM ${table('roles')} r JOIN ${table('tenants')} t ON t.id = r.tenant_id
       WHERE t.slug = $1 ORDER BY r.name`,
      [tenant],
    );
    return rows.map(toStoredRole);
  }

  /** The named roles of the tenant that exist (unknown names are left out). */
  async findByNames(tenant: string, names: readonly string[]): Promise<StoredRole[]> {
    if (names.length === 0) return [];
    const rows = await queryRows<RoleRow>(
      this.dataSource,
      `SELECT r.name, r.description, r.scopes, r.scope_descriptions FROM ${table('roles')} r JOIN ${table('tenants')} t ON t.id = r.tenant_id
       WHERE t.slug = $1 AND r.name = ANY($2::text[]) ORDER BY r.name`,
      [tenant, [...names]],
    );
    return rows.map(toStoredRole);
  }

  /** Creates or replaces the role; answers whether it was new. The tenant must exist. */
  async upsert(tenant: string, role: StoredRole): Promise<boolean> {
    const rows = await queryRows<{ created: boolean }>(
      this.dataSource,
      `INSERT INTO ${table('roles')} (id, tenant_id, name, description, scopes, scope_descriptions)
       SELECT $1, t.id, $3, $4, $5::jsonb, $6::jsonb FROM ${table('tenants')} t WHERE t.slug = $2
       ON CONFLICT (tenant_id, name) DO UPDATE
         SET description = EXCLUDED.description, scopes = EXCLUDED.scopes, scope_descriptions = EXCLUDED.scope_descriptions, updated_at = now()
       RETURNING (xmax = 0) AS created`,
      [this.ids.newId(), tenant, role.name, role.description, JSON.stringify(role.scopes), JSON.stringify(role.scopeDescriptions)],
    );
    return rows[0]?.created === true;
  }

  /** Deletes the role (users lose it); answers whether it existed. */
  async delete(tenant: string, name: string): Promise<boolean> {
    const rows = await queryRows(
      this.dataSource,
      `DELETE FROM ${table('roles')} r USING ${table('tenants')} t WHERE t.id = r.tenant_id AND t.slug = $1 AND r.name = $2 RETURNING r.id`,
      [tenant, name],
    );
    return rows.length > 0;
  }
}

function toStoredRole(row: RoleRow): StoredRole {
  // jsonb arrives parsed from `pg`; parse defensively should a driver hand back text.
  const scopes = typeof row.scopes === 'string' ? (JSON.parse(row.scopes) as string[]) : row.scopes;
  const scopeDescriptions =
    typeof row.scope_descriptions === 'string' ? (JSON.parse(row.scope_descriptions) as Record<string, string>) : row.scope_descriptions;
  return { name: row.name, description: row.description, scopes, scopeDescriptions };
}
