import { randomBytes } from 'node:crypto';

/** Where the real services of the integration and e2e tiers run (CI starts them before the tests). */
export interface TestInfrastructure {
  /** A PostgreSQL URL whose role may `CREATE DATABASE` (trust auth on CI). */
  databaseUrl: string;
  /** NATS with JetStream on. */
  natsUrl: string;
}

/** Reads `DATABASE_URL` and `NATS_URL`, with the defaults the common brief names. */
export function testInfrastructure(env: Record<string, string | undefined> = process.env): TestInfrastructure {
  return {
    databaseUrl: env['DATABASE_URL'] ?? 'postgres://postgres@127.0.0.1:5432/test',
    natsUrl: env['NATS_URL'] ?? 'nats://127.0.0.1:4222',
  };
}

/** A short unique suffix for names that isolate one test run (databases, buckets, NATS subject prefixes): `[a-z0-9]`. */
export function uniqueRunId(): string {
  return `${Date.now().toString(36)}${randomBytes(4).toString('hex')}`;
}
