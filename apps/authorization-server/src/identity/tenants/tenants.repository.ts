import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { IdSource } from '@mcp-platform/shared-clock';
import { AUTHORIZATION_SERVER_CONNECTION } from '../../authorization-server.constants';
import { queryRows, table } from '../../authorization-server.sql';
import type { Tenant } from '../identity.types';

/** A role written together with a new tenant. */
export interface InitialRole {
  name: string;
  description: string;
  scopes: string[];
  scopeDescriptions?: Record<string, string>;
}

interface TenantRow {
  id: string;
  slug: string;
  name: string;
  disabled: boolean;
  created_at: Date | string;
}

/** The tenants table behind domain types; every method names its tenant by slug. */
@Injectable()
export class TenantsRepository {
  constructor(
    @InjectDataSource(AUTHORIZATION_SERVER_CONNECTION) private readonly dataSource: DataSource,
    private readonly ids: IdSource,
  ) {}

  async list(): Promise<Tenant[]> {
    const rows = await queryRows<TenantRow>(this.dataSource, `SELECT id, slug, name, disabled, created_at FROM ${table('tenants')} ORDER BY slug`);
    return rows.map(toTenant);
  }

  async find(slug: string): Promise<Tenant | undefined> {
    const rows = await queryRows<TenantRow>(this.dataSource, `SELECT id, slug, name, disabled, created_at FROM ${table('tenants')} WHERE slug = $1`, [slug]);
    return rows[0] && toTenant(rows[0]);
  }

  /**
   * Creates the tenant with its initial roles in one transaction; roles already present are left as
   * they are. Answers whether the tenant row was new (idempotent: the seed calls it on every boot).
   */
  async insertWithRoles(tenant: { slug: string; name: string }, roles: InitialRole[]): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      const inserted = await queryRows(
        manager,
        `INSERT INTO ${table('tenants')} (id, slug, name) VALUES ($1, $2, $3) ON CONFLICT (slug) DO NOTHING RETURNING id`,
        [this.ids.newId(), tenant.slug, tenant.name],
      );
      for (const role of roles) {
        await manager.query(
          `INSERT INTO ${table('roles')} (id, tenant_id, name, description, scopes, scope_descriptions)
           SELECT $1, t.id, $3, $4, $5::jsonb, $6::jsonb FROM ${table('tenants')} t WHERE t.slug = $2
           ON CONFLICT (tenant_id, name) DO NOTHING`,
          [this.ids.newId(), tenant.slug, role.name, role.description, JSON.stringify(role.scopes), JSON.stringify(role.scopeDescriptions ?? {})],
        );
      }
      return inserted.length > 0;
    });
  }

  /** Applies the changes; `undefined` when the tenant does not exist. */
  async update(slug: string, changes: { name?: string; disabled?: boolean }): Promise<Tenant | undefined> {
    const rows = await queryRows<TenantRow>(
      this.dataSource,
      `UPDATE ${table('tenants')} SET name = COALESCE($2, name), disabled = COALESCE($3, disabled), updated_at = now()
       WHERE slug = $1 RETURNING id, slug, name, disabled, created_at`,
      [slug, changes.name ?? null, changes.disabled ?? null],
    );
    return rows[0] && toTenant(rows[0]);
  }

  /** Deletes the tenant with its users and roles (foreign keys cascade); answers whether it existed. */
  async delete(slug: string): Promise<boolean> {
    const rows = await queryRows(this.dataSource, `DELETE FROM ${table('tenants')} WHERE slug = $1 RETURNING id`, [slug]);
    return rows.length > 0;
  }
}

function toTenant(row: TenantRow): Tenant {
  return { id: row.id, slug: row.slug, name: row.name, disabled: row.disabled, createdAt: new Date(row.created_at) };
}
