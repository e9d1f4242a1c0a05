import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AUTHORIZATION_SERVER_CONNECTION } from '../authorization-server.constants';
import { queryRows, type SqlRunner, table } from '../authorization-server.sql';

/** A signing key as stored (`privateJwk` possibly sealed, see `KeyEncryption`). */
export interface StoredSigningKey {
  kid: string;
  alg: string;
  privateJwk: Record<string, unknown>;
  createdAt: Date;
  activatedAt: Date;
  retiredAt: Date | null;
}

interface SigningKeyRow {
  kid: string;
  alg: string;
  private_jwk: Record<string, unknown> | string;
  created_at: Date | string;
  activated_at: Date | string;
  retired_at: Date | string | null;
}

/** The key table as seen inside the rotation lock. */
export interface SigningKeyStore {
  list(): Promise<StoredSigningKey[]>;
  /** Stores a new key, active from `now`. */
  insert(key: { kid: string; alg: string; privateJwk: Record<string, unknown> }, now: Date): Promise<void>;
  /** Retires every active key except `keepKid`. */
  retireAllExcept(keepKid: string, now: Date): Promise<void>;
  delete(kids: readonly string[]): Promise<void>;
}

/** Key of the transaction-level advisory lock that serializes rotations across replicas. */
const ROTATION_LOCK = 'mcp-platform:authorization-server:signing-key-rotation';

/** The signing keys table. Changes happen only inside `withRotationLock`. */
@Injectable()
export class SigningKeysRepository {
  constructor(@InjectDataSource(AUTHORIZATION_SERVER_CONNECTION) private readonly dataSource: DataSource) {}

  list(): Promise<StoredSigningKey[]> {
    return listKeys(this.dataSource);
  }

  /**
   * Runs `work` in a transaction holding a PostgreSQL advisory lock, so two replicas never rotate at
   * once: the second waits, then sees the first one's key. (On PGlite the single connection already
   * serializes transactions; the lock is granted at once.)
   */
  withRotationLock<T>(work: (store: SigningKeyStore) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [ROTATION_LOCK]);
      return work({
        list: () => listKeys(manager),
        insert: async (key, now) => {
          await queryRows(
            manager,
            `INSERT INTO ${table('signing_keys')} (kid, alg, private_jwk, created_at, activated_at) VALUES ($1, $2, $3::jsonb, $4, $4)`,
            [key.kid, key.alg, JSON.stringify(key.privateJwk), now],
          );
        },
        retireAllExcept: async (keepKid, now) => {
          await queryRows(manager, `UPDATE ${table('signing_keys')} SET retired_at = $2 WHERE retired_at IS NULL AND kid <> $1`, [keepKid, now]);
        },
        delete: async (kids) => {
          if (kids.length) await queryRows(manager, `DELETE FROM ${table('signing_keys')} WHERE kid = ANY($1::text[])`, [[...kids]]);
        },
      });
    });
  }
}

async function listKeys(runner: SqlRunner): Promise<StoredSigningKey[]> {
  const rows = await queryRows<SigningKeyRow>(
    runner,
    `SELECT kid, alg, private_jwk, created_at, activated_at, retired_at FROM ${table('signing_keys')} ORDER BY activated_at DESC, kid`,
  );
  return rows.map((row) => ({
    kid: row.kid,
    alg: row.alg,
    privateJwk: typeof row.private_jwk === 'string' ? (JSON.parse(row.private_jwk) as Record<string, unknown>) : row.private_jwk,
    createdAt: new Date(row.created_at),
    activatedAt: new Date(row.activated_at),
    retiredAt: row.retired_at === null ? null : new Date(row.retired_at),
  }));
}
