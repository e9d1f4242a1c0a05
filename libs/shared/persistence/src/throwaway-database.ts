import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** The server tests use when `DATABASE_URL` is not set (trust auth on loopback). */
export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** A database created for one test run, and how to drop it. */
export interface ThrowawayDatabase {
  /** Connection URL of the new database (same server and role as the admin URL). */
  readonly url: string;
  readonly name: string;
  /** Drops the database, disconnecting whoever is still connected. Idempotent. */
  drop(): Promise<void>;
}

/**
 * For integration and end-to-end tests (STYLE.md §11: each run isolated by its own database):
 * `CREATE DATABASE <prefix>_<unique>` on the server of `serverUrl`. The prefix must be a plain
 * identifier, so the name can be inlined (DDL takes no bind parameters). Not used by apps at run time;
 * it lives here because it needs nothing but `pg`, and `libs/shared/testing` re-exports it.
 */
export async function createThrowawayDatabase(serverUrl: string, prefix = 'test'): Promise<ThrowawayDatabase> {
  if (!/^[a-z_][a-z0-9_]{0,40}$/.test(prefix)) throw new Error(`not a plain database name prefix: ${prefix}`);
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await withAdminClient(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    url: url.toString(),
    name,
    async drop() {
      if (dropped) return;
      dropped = true;
      await withAdminClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

async function withAdminClient<T>(serverUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
