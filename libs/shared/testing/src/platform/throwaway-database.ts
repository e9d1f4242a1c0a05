import { Client } from 'pg';

/** A database created for one run and dropped after it. */
export interface ThrowawayDatabase {
  readonly name: string;
  /** URL of the new database (same server and role as the admin URL). */
  readonly url: string;
  /** Drops the database, disconnecting whoever is still connected. Idempotent. */
  drop(): Promise<void>;
}

/**
 * `CREATE DATABASE <prefix>_<runId>` on the server of `adminUrl`; the name is checked to be a plain
 * identifier, so it can be inlined (DDL takes no bind parameters).
 */
export async function createThrowawayDatabase(adminUrl: string, name: string): Promise<ThrowawayDatabase> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    name,
    url: url.toString(),
    async drop() {
      if (dropped) return;
      dropped = true;
      await withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

async function withAdmin<T>(adminUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
