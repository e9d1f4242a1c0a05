import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { AUTHORIZATION_SERVER_CONNECTION, AUTHORIZATION_SERVER_SCHEMA } from '../authorization-server.constants';
import { queryRows } from '../authorization-server.sql';

const SECRETS = `"${AUTHORIZATION_SERVER_SCHEMA}"."oauth_secrets"`;

/** The `oauth_secrets` table: named values generated once and shared by every replica. */
@Injectable()
export class OAuthSecretsRepository {
  constructor(@InjectDataSource(AUTHORIZATION_SERVER_CONNECTION) private readonly dataSource: DataSource) {}

  /**
   * The stored value of `name`, storing `candidate` first when there is none. Replicas starting
   * together all end up with the value of whichever insert won.
   */
  async getOrCreate(name: string, candidate: string): Promise<string> {
    await this.dataSource.query(`INSERT INTO ${SECRETS} (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [name, candidate]);
    const [row] = await queryRows<{ value: string }>(this.dataSource, `SELECT value FROM ${SECRETS} WHERE name = $1`, [name]);
    if (!row) throw new Error(`secret ${name} vanished after insert`);
    return row.value;
  }
}
