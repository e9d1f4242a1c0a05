import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AUTHORIZATION_SERVER_CONNECTION } from '../../authorization-server.constants';
import { isUniqueViolation, isUuid, queryRows, type SqlRunner, table } from '../../authorization-server.sql';
import type { UserAccount } from '../identity.types';

/** A user as stored, with what sign-in needs besides the account: the hash and the tenant's state. */
export interface StoredUser {
  account: UserAccount;
  passwordHash: string;
  /** The user's tenant is disabled (false for users without tenant). */
  tenantDisabled: boolean;
}

/** A new user's row; `roles` must be names of roles of `tenant`. */
export interface NewUser {
  id: string;
  username: string;
  passwordHash: string;
  tenant: string | null;
  platformAdmin: boolean;
  roles: string[];
}

/** Changes to a user; `roles` replaces the whole set. */
export interface UserChanges {
  passwordHash?: string;
  disabled?: boolean;
  roles?: string[];
}

interface UserRow {
  id: string;
  username: string;
  password_hash: string;
  tenant: string | null;
  tenant_disabled: boolean | null;
  platform_admin: boolean;
  disabled: boolean;
  roles: string[] | string;
}

/** `users` joined with its tenant's slug and its role names; `$1`-based filters are appended. */
const SELECT_USERS = `
  SELECT u.id, u.username, u.password_hash, t.slug AS tenant, t.disabled AS tenant_disabled, u.platform_admin, u.disabled,
         COALESCE((SELECT jsonb_agg(r.name ORDER BY r.name) FROM ${table('user_roles')} ur JOIN ${table('roles')} r ON r.id = ur.role_id
                   WHERE ur.user_id = u.id), '[]'::jsonb) AS roles
  FROM ${table('users')} u LEFT JOIN ${table('tenants')} t ON t.id = u.tenant_id`;

/** `tenant = $n` for a slug, or "no tenant" for `null` (platform administrators without tenant). */
function tenantFilter(tenant: string | null, parameter: number): string {
  return tenant === null ? 'u.tenant_id IS NULL' : `t.slug = $${parameter}`;
}

/**
 * The users table behind domain types. Reads and writes are scoped to a tenant (a slug, or `null` for
 * users without tenant), except the two sign-in look-ups (by username, by id), which span tenants
 * because the username is unique platform-wide.
 */
@Injectable()
export class UsersRepository {
  constructor(@InjectDataSource(AUTHORIZATION_SERVER_CONNECTION) private readonly dataSource: DataSource) {}

  async findByUsername(username: string): Promise<StoredUser | undefined> {
    const rows = await queryRows<UserRow>(this.dataSource, `${SELECT_USERS} WHERE u.username = $1`, [username]);
    return rows[0] && toStoredUser(rows[0]);
  }

  async findById(id: string): Promise<StoredUser | undefined> {
    if (!isUuid(id)) return undefined;
    const rows = await queryRows<UserRow>(this.dataSource, `${SELECT_USERS} WHERE u.id = $1`, [id]);
    return rows[0] && toStoredUser(rows[0]);
  }

  async list(tenant: string | null): Promise<StoredUser[]> {
    const rows = await queryRows<UserRow>(
      this.dataSource,
      `${SELECT_USERS} WHERE ${tenantFilter(tenant, 1)} ORDER BY u.username`,
      tenant === null ? [] : [tenant],
    );
    return rows.map(toStoredUser);
  }

  async get(tenant: string | null, id: string): Promise<StoredUser | undefined> {
    if (!isUuid(id)) return undefined;
    const rows = await queryRows<UserRow>(
      this.dataSource,
      `${SELECT_USERS} WHERE u.id = $1 AND ${tenantFilter(tenant, 2)}`,
      tenant === null ? [id] : [id, tenant],
    );
    return rows[0] && toStoredUser(rows[0]);
  }

  /** Whether an enabled platform administrator other than `exceptId` exists. */
  async anotherActivePlatformAdminExists(exceptId?: string): Promise<boolean> {
    const rows = await queryRows<{ found: number }>(
      this.dataSource,
      `SELECT 1 AS found FROM ${table('users')} WHERE platform_admin AND NOT disabled AND ($1::uuid IS NULL OR id <> $1::uuid) LIMIT 1`,
      [exceptId ?? null],
    );
    return rows.length > 0;
  }

  /** Inserts the user with their roles; `false` when the username is taken. */
  async insert(user: NewUser): Promise<boolean> {
    try {
      return await this.dataSource.transaction(async (manager) => {
        const inserted = await queryRows(
          manager,
          `INSERT INTO ${table('users')} (id, username, password_hash, tenant_id, platform_admin)
           VALUES ($1, $2, $3, (SELECT id FROM ${table('tenants')} WHERE slug = $4), $5)
           ON CONFLICT (username) DO NOTHING RETURNING id`,
          [user.id, user.username, user.passwordHash, user.tenant, user.platformAdmin],
        );
        if (inserted.length === 0) return false;
        if (user.tenant !== null) await replaceRoles(manager, user.id, user.tenant, user.roles);
        return true;
      });
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** Applies the changes to the tenant's user; `undefined` when there is no such user in the tenant. */
  async update(tenant: string | null, id: string, changes: UserChanges): Promise<StoredUser | undefined> {
    if (!isUuid(id)) return undefined;
    const found = await this.dataSource.transaction(async (manager) => {
      const rows = await queryRows<{ id: string }>(
        manager,
        `UPDATE ${table('users')} u SET password_hash = COALESCE($2, u.password_hash), disabled = COALESCE($3, u.disabled), updated_at = now()
         WHERE u.id = $1 AND ${tenant === null ? 'u.tenant_id IS NULL' : `u.tenant_id = (SELECT id FROM ${table('tenants')} WHERE slug = $4)`}
         RETURNING u.id`,
        tenant === null ? [id, changes.passwordHash ?? null, changes.disabled ?? null] : [id, changes.passwordHash ?? null, changes.disabled ?? null, tenant],
      );
      if (rows.length === 0) return false;
      if (changes.roles !== undefined && tenant !== null) await replaceRoles(manager, id, tenant, changes.roles);
      return true;
    });
    return found ? this.get(tenant, id) : undefined;
  }

  /** Only the password hash, by id (the seed resets the demo user's password on every boot). */
  async setPasswordHash(id: string, passwordHash: string): Promise<void> {
    await queryRows(this.dataSource, `UPDATE ${table('users')} SET password_hash = $2, updated_at = now() WHERE id = $1`, [id, passwordHash]);
  }

  /** Deletes the tenant's user; answers whether it existed. */
  async delete(tenant: string | null, id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const rows = await queryRows(
      this.dataSource,
      tenant === null
        ? `DELETE FROM ${table('users')} WHERE id = $1 AND tenant_id IS NULL RETURNING id`
        : `DELETE FROM ${table('users')} WHERE id = $1 AND tenant_id = (SELECT id FROM ${table('tenants')} WHERE slug = $2) RETURNING id`,
      tenant === null ? [id] : [id, tenant],
    );
    return rows.length > 0;
  }
}

/** Sets the user's roles to exactly `roles` (names of roles of `tenant`). */
async function replaceRoles(runner: SqlRunner, userId: string, tenant: string, roles: readonly string[]): Promise<void> {
  await queryRows(runner, `DELETE FROM ${table('user_roles')} WHERE user_id = $1`, [userId]);
  if (roles.length === 0) return;
  await queryRows(
    runner,
    `INSERT INTO ${table('user_roles')} (user_id, role_id)
     SELECT $1, r.id FROM ${table('roles')} r JOIN ${table('tenants')} t ON t.id = r.tenant_id WHERE t.slug = $2 AND r.name = ANY($3::text[])
     ON CONFLICT DO NOTHING`,
    [userId, tenant, [...roles]],
  );
}

function toStoredUser(row: UserRow): StoredUser {
  const roles = typeof row.roles === 'string' ? (JSON.parse(row.roles) as string[]) : row.roles;
  return {
    account: { id: row.id, username: row.username, tenant: row.tenant, platformAdmin: row.platform_admin, roles, disabled: row.disabled },
    passwordHash: row.password_hash,
    tenantDisabled: row.tenant_disabled === true,
  };
}
