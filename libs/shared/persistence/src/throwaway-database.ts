import { randomBytes } from 'node:crypto';
import { Client } from 'pg';

/** The server tests use when `DATABASE_URL` is not set (trust auth on loopback). */
export const DEFAULT_TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** A database created for one test run, and how to drop it. */
export interface ThrowawayDatabase {
  /** Connection URL of the new database. */
  url: string;
  name: string;
  drop(): Promise<void>;
}

/**
 * For integration tests (STYLE.md §11: each run isolated by its own database): creates
 * `CREATE DATABASE <unique>` on the server of `serverUrl` and drops it (with its connections) after.
 * Not used by apps at run time; it lives here because it needs nothing but `pg`, which this lib has.
 */
export async function createThrowawayDatabase(serverUrl: string, prefix = 'test'): Promise<ThrowawayDatabase> {
  const name = `${prefix.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await withAdminClient(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => withAdminClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => undefined),
  };
}

async function withAdminClient<T>(serverUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
