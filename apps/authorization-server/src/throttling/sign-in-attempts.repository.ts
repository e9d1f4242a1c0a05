import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AUTHORIZATION_SERVER_CONNECTION, AUTHORIZATION_SERVER_SCHEMA } from '../authorization-server.constants';
import { queryRows } from '../authorization-server.sql';

const ATTEMPTS = `"${AUTHORIZATION_SERVER_SCHEMA}"."sign_in_attempts"`;

/** The attempts of one throttled key, in milliseconds since the epoch. */
export interface Attempts {
  failures: number;
  lastFailureAt: number;
  blockedUntil: number;
}

interface AttemptsRow {
  key: string;
  failures: number;
  last_failure_at: Date | string;
  blocked_until: Date | string;
}

/**
 * The `sign_in_attempts` table: the throttles' counts by key (sign-in attempts per username and address
 * or account, `SignInThrottle`; client registrations per network, `RegistrationThrottle`). `update` runs a
 * decision under row locks, so attempts racing on any replica are decided one after the other on the
 * same counts (a reservation is never lost or doubled).
 */
@Injectable()
export class SignInAttemptsRepository {
  constructor(@InjectDataSource(AUTHORIZATION_SERVER_CONNECTION) private readonly dataSource: DataSource) {}

  /**
   * Locks the keys' rows (created empty when missing), hands their attempts to `decide` (absent for a
   * key without any) and writes what it answers, in one transaction. `decide` answers `undefined` to
   * write nothing.
   */
  async update<T>(
    keys: readonly string[],
    decide: (current: ReadonlyMap<string, Attempts>) => { result: T; write?: ReadonlyMap<string, Attempts> },
  ): Promise<T> {
    const sorted = [...new Set(keys)].sort();
    return this.dataSource.transaction(async (manager) => {
      // Rows exist before they are locked, so a first attempt and its twin lock the same row.
      await manager.query(
        `INSERT INTO ${ATTEMPTS} (key, failures, last_failure_at, blocked_until)
         SELECT k, 0, 'epoch'::timestamptz, 'epoch'::timestamptz FROM unnest($1::text[]) AS k
         ON CONFLICT (key) DO NOTHING`,
        [sorted],
      );
      const rows = await queryRows<AttemptsRow>(
        manager,
        `SELECT key, failures, last_failure_at, blocked_until FROM ${ATTEMPTS} WHERE key = ANY($1::text[]) ORDER BY key FOR UPDATE`,
        [sorted],
      );
      const current = new Map<string, Attempts>();
      for (const row of rows) {
        if (row.failures > 0)
          current.set(row.key, {
            failures: row.failures,
            lastFailureAt: new Date(row.last_failure_at).getTime(),
            blockedUntil: new Date(row.blocked_until).getTime(),
          });
      }
      const { result, write } = decide(current);
      for (const [key, attempts] of write ?? []) {
        await manager.query(`UPDATE ${ATTEMPTS} SET failures = $2, last_failure_at = $3, blocked_until = $4 WHERE key = $1`, [
          key,
          attempts.failures,
          new Date(attempts.lastFailureAt),
          new Date(attempts.blockedUntil),
        ]);
      }
      return result;
    });
  }

  /** Forgets the keys (a successful sign-in). */
  async delete(keys: readonly string[]): Promise<void> {
    await this.dataSource.query(`DELETE FROM ${ATTEMPTS} WHERE key = ANY($1::text[])`, [[...keys]]);
  }

  /** Deletes rows whose last failure is older than `before` and that block nothing any more; answers how many. */
  async deleteStale(before: Date, now: Date): Promise<number> {
    const rows = await queryRows(this.dataSource, `DELETE FROM ${ATTEMPTS} WHERE last_failure_at < $1 AND blocked_until <= $2 RETURNING key`, [before, now]);
    return rows.length;
  }
}
