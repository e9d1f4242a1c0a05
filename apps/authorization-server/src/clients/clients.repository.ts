import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AUTHORIZATION_SERVER_CONNECTION, AUTHORIZATION_SERVER_SCHEMA } from '../authorization-server.constants';
import { isUniqueViolation, queryRows } from '../authorization-server.sql';

const CLIENTS = `"${AUTHORIZATION_SERVER_SCHEMA}"."oauth_clients"`;
const TENANTS = `"${AUTHORIZATION_SERVER_SCHEMA}"."tenants"`;

/** A client as stored: its metadata (RFC 7591 names, no secret) and the hash of its secret. */
export interface StoredClient {
  clientId: string;
  /** The owning tenant's slug; `null` for a dynamically registered client. */
  tenant: string | null;
  metadata: Record<string, unknown>;
  secretHash: string | null;
  createdAt: Date;
}

interface ClientRow {
  client_id: string;
  tenant: string | null;
  metadata: Record<string, unknown> | string;
  secret_hash: string | null;
  created_at: Date | string;
}

const SELECT_CLIENTS = `SELECT c.client_id, t.slug AS tenant, c.metadata, c.secret_hash, c.created_at FROM ${CLIENTS} c LEFT JOIN ${TENANTS} t ON t.id = c.tenant_id`;

/** The `oauth_clients` table behind `StoredClient`; tenants are named by slug. */
@Injectable()
export class ClientsRepository {
  constructor(@InjectDataSource(AUTHORIZATION_SERVER_CONNECTION) private readonly dataSource: DataSource) {}

  async find(clientId: string): Promise<StoredClient | undefined> {
    const [row] = await queryRows<ClientRow>(this.dataSource, `${SELECT_CLIENTS} WHERE c.client_id = $1`, [clientId]);
    return row && toStored(row);
  }

  /** The tenant's clients by creation time. */
  async list(tenant: string): Promise<StoredClient[]> {
    const rows = await queryRows<ClientRow>(this.dataSource, `${SELECT_CLIENTS} WHERE t.slug = $1 ORDER BY c.created_at, c.client_id`, [tenant]);
    return rows.map(toStored);
  }

  /**
   * Inserts a client; `tenant` null for a dynamically registered one. Answers `false` when the client
   * id is taken or the tenant does not exist (nothing is written then).
   */
  async insert(client: { clientId: string; tenant: string | null; metadata: Record<string, unknown>; secretHash: string | null }): Promise<boolean> {
    try {
      const rows = await queryRows<{ client_id: string }>(
        this.dataSource,
        client.tenant === null
          ? `INSERT INTO ${CLIENTS} (client_id, tenant_id, metadata, secret_hash) VALUES ($1, NULL, $2::jsonb, $3) RETURNING client_id`
          : `INSERT INTO ${CLIENTS} (client_id, tenant_id, metadata, secret_hash)
             SELECT $1, t.id, $2::jsonb, $3 FROM ${TENANTS} t WHERE t.slug = $4 RETURNING client_id`,
        client.tenant === null
          ? [client.clientId, JSON.stringify(client.metadata), client.secretHash]
          : [client.clientId, JSON.stringify(client.metadata), client.secretHash, client.tenant],
      );
      return rows.length === 1;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /**
   * Replaces a dynamically registered client's metadata (RFC 7592 update). Never touches a
   * pre-registered client: DCR cannot take over a tenant's client id.
   */
  async updateRegistered(clientId: string, metadata: Record<string, unknown>, secretHash: string | null): Promise<boolean> {
    const rows = await queryRows<{ client_id: string }>(
      this.dataSource,
      `UPDATE ${CLIENTS} SET metadata = $2::jsonb, secret_hash = $3 WHERE client_id = $1 AND tenant_id IS NULL RETURNING client_id`,
      [clientId, JSON.stringify(metadata), secretHash],
    );
    return rows.length === 1;
  }

  /** Deletes a tenant's client (`tenant` null: a dynamically registered one); `false` when there was none. */
  async delete(tenant: string | null, clientId: string): Promise<boolean> {
    const rows = await queryRows<{ client_id: string }>(
      this.dataSource,
      tenant === null
        ? `DELETE FROM ${CLIENTS} WHERE client_id = $1 AND tenant_id IS NULL RETURNING client_id`
        : `DELETE FROM ${CLIENTS} c USING ${TENANTS} t WHERE c.client_id = $1 AND c.tenant_id = t.id AND t.slug = $2 RETURNING c.client_id`,
      tenant === null ? [clientId] : [clientId, tenant],
    );
    return rows.length === 1;
  }
}

function toStored(row: ClientRow): StoredClient {
  return {
    clientId: row.client_id,
    tenant: row.tenant,
    metadata: typeof row.metadata === 'string' ? (JSON.parse(row.metadata) as Record<string, unknown>) : row.metadata,
    secretHash: row.secret_hash,
    createdAt: new Date(row.created_at),
  };
}
