import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { authorizationServer } from '@mcp-platform/protocol-contracts';
import { AUTHORIZATION_SERVER_CONNECTION, AUTHORIZATION_SERVER_SCHEMA } from '../authorization-server.constants';
import { queryRows } from '../authorization-server.sql';

const REVOCATIONS = `"${AUTHORIZATION_SERVER_SCHEMA}"."revocations"`;

interface RevocationRow {
  kind: 'tenant' | 'subject';
  id: string;
  revoked_at: Date | string;
  tenant: string | null;
}

/** The `revocations` table behind `Revocation`s. */
@Injectable()
export class RevocationsRepository {
  constructor(@InjectDataSource(AUTHORIZATION_SERVER_CONNECTION) private readonly dataSource: DataSource) {}

  /** Records the revocation; of two for one tenant or subject the later stays. */
  async record(revocation: authorizationServer.Revocation): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO ${REVOCATIONS} (kind, id, revoked_at, tenant) VALUES ($1, $2, $3, $4)
       ON CONFLICT (kind, id) DO UPDATE SET revoked_at = GREATEST(${REVOCATIONS}.revoked_at, EXCLUDED.revoked_at), tenant = COALESCE(EXCLUDED.tenant, ${REVOCATIONS}.tenant)`,
      [revocation.kind, revocation.id, new Date(revocation.revokedAt), revocation.tenant ?? null],
    );
  }

  /** The revocations made at or after `since`. */
  async listSince(since: Date): Promise<authorizationServer.Revocation[]> {
    const rows = await queryRows<RevocationRow>(
      this.dataSource,
      `SELECT kind, id, revoked_at, tenant FROM ${REVOCATIONS} WHERE revoked_at >= $1 ORDER BY revoked_at`,
      [since],
    );
    return rows.map(toRevocation);
  }

  /** The revocations of the subject and of the tenant (by id), at most one of each. */
  async findFor(subject: string, tenantId: string | undefined): Promise<authorizationServer.Revocation[]> {
    const rows = await queryRows<RevocationRow>(
      this.dataSource,
      `SELECT kind, id, revoked_at, tenant FROM ${REVOCATIONS} WHERE (kind = 'subject' AND id = $1) OR (kind = 'tenant' AND id = $2)`,
      [subject, tenantId ?? null],
    );
    return rows.map(toRevocation);
  }

  /** Deletes the revocations older than `before`; answers how many. */
  async deleteBefore(before: Date): Promise<number> {
    const rows = await queryRows(this.dataSource, `DELETE FROM ${REVOCATIONS} WHERE revoked_at < $1 RETURNING id`, [before]);
    return rows.length;
  }
}

function toRevocation(row: RevocationRow): authorizationServer.Revocation {
  return { kind: row.kind, id: row.id, revokedAt: new Date(row.revoked_at).getTime(), ...(row.tenant === null ? {} : { tenant: row.tenant }) };
}
