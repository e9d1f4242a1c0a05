import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AUTHORIZATION_SERVER_CONNECTION, AUTHORIZATION_SERVER_SCHEMA } from '../authorization-server.constants';
import { queryRows } from '../authorization-server.sql';

const RECORDS = `"${AUTHORIZATION_SERVER_SCHEMA}"."oidc_records"`;

/** What oidc-provider stores for one artifact. */
export type OidcPayload = Record<string, unknown>;

/** The columns besides the payload that lookups need. */
export interface OidcRecordKeys {
  grantId: string | null;
  uid: string | null;
  userCode: string | null;
  /** `null`: does not expire. */
  expiresAt: Date | null;
}

interface RecordRow {
  payload: OidcPayload | string;
  consumed_at: Date | string | null;
}

/** Only rows that have not expired are ever answered. */
const LIVE = `(expires_at IS NULL OR expires_at > now())`;

/**
 * The `oidc_records` table: oidc-provider's artifacts by model and id. Plain SQL that PostgreSQL and
 * PGlite both run; every statement is one round trip, so concurrent replicas need no locks (the
 * provider's own consume-then-check logic detects replays, S-160/S-174).
 */
@Injectable()
export class OidcRecordsRepository {
  constructor(@InjectDataSource(AUTHORIZATION_SERVER_CONNECTION) private readonly dataSource: DataSource) {}

  async upsert(model: string, id: string, payload: OidcPayload, keys: OidcRecordKeys): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ${RECORDS} (model, id, payload, grant_id, uid, user_code, expires_at, consumed_at)
       VALUES ($1, $2, $3::jsonb, $4, $5, $6, $7, NULL)
       ON CONFLICT (model, id) DO UPDATE SET payload = EXCLUDED.payload, grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid,
         user_code = EXCLUDED.user_code, expires_at = EXCLUDED.expires_at`,
      [model, id, JSON.stringify(payload), keys.grantId, keys.uid, keys.userCode, keys.expiresAt],
    );
  }

  /** The payload, with `consumed` (epoch seconds) when it was consumed; `undefined` when absent or expired. */
  async find(model: string, id: string): Promise<OidcPayload | undefined> {
    return this.first(`SELECT payload, consumed_at FROM ${RECORDS} WHERE model = $1 AND id = $2 AND ${LIVE}`, [model, id]);
  }

  async findByUid(model: string, uid: string): Promise<OidcPayload | undefined> {
    return this.first(`SELECT payload, consumed_at FROM ${RECORDS} WHERE model = $1 AND uid = $2 AND ${LIVE} LIMIT 1`, [model, uid]);
  }

  async findByUserCode(model: string, userCode: string): Promise<OidcPayload | undefined> {
    return this.first(`SELECT payload, consumed_at FROM ${RECORDS} WHERE model = $1 AND user_code = $2 AND ${LIVE} LIMIT 1`, [model, userCode]);
  }

  async consume(model: string, id: string): Promise<void> {
    await this.dataSource.query(`UPDATE ${RECORDS} SET consumed_at = now() WHERE model = $1 AND id = $2 AND consumed_at IS NULL`, [model, id]);
  }

  async destroy(model: string, id: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM ${RECORDS} WHERE model = $1 AND id = $2`, [model, id]);
  }

  /** Deletes everything issued under the grant (the grant's tokens and codes; the grant row itself is deleted by the provider). */
  async revokeByGrantId(grantId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM ${RECORDS} WHERE grant_id = $1`, [grantId]);
  }

  /** Deletes every grant, code and token issued to a client (its JWT access tokens stay valid until they expire). */
  async deleteByClientId(clientId: string): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      this.dataSource,
      `DELETE FROM ${RECORDS} WHERE payload->>'clientId' = $1 OR grant_id IN (SELECT id FROM ${RECORDS} WHERE model = 'Grant' AND payload->>'clientId' = $1) RETURNING id`,
      [clientId],
    );
    return rows.length;
  }

  /** Deletes rows whose expiry has passed; answers how many. */
  async deleteExpired(): Promise<number> {
    const rows = await queryRows<{ id: string }>(this.dataSource, `DELETE FROM ${RECORDS} WHERE expires_at <= now() RETURNING id`);
    return rows.length;
  }

  private async first(sql: string, parameters: unknown[]): Promise<OidcPayload | undefined> {
    const [row] = await queryRows<RecordRow>(this.dataSource, sql, parameters);
    if (!row) return undefined;
    const payload = typeof row.payload === 'string' ? (JSON.parse(row.payload) as OidcPayload) : row.payload;
    if (row.consumed_at === null) return payload;
    return { ...payload, consumed: Math.floor(new Date(row.consumed_at).getTime() / 1000) };
  }
}
