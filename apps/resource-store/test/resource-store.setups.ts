import 'reflect-metadata';
import { Module, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { inProcessMessaging, MessagingModule, microserviceOptions, RpcError, type MessagingOptions } from '@mcp-platform/shared-messaging';
import { createThrowawayDatabase, DEFAULT_TEST_DATABASE_URL, type DatabaseOptions, type ThrowawayDatabase } from '@mcp-platform/shared-persistence';
import { ResourceStoreModule } from '../src';

/** The two ways the resource store's integration suites run it: real NATS + PostgreSQL, and in-process + PGlite. */

const NATS_URL = process.env['NATS_URL'] ?? 'nats://127.0.0.1:4222';

/** A small quota, so the refusal is cheap to reach (the seeds take a few KiB). */
export const TEST_QUOTA_BYTES = 64 * 1024;

export interface Setup {
  name: string;
  messaging: () => MessagingOptions;
  database: () => Promise<{ options: DatabaseOptions; drop?: () => Promise<void> }>;
}

/** Both setups; `run` isolates this suite's NATS subjects, buckets and client name from every other run. */
export function setups(run: string): Setup[] {
  return [
    {
      name: 'NATS + PostgreSQL',
      messaging: () => ({ transport: 'nats', servers: NATS_URL, name: `resource-store-test-${run}`, bucketPrefix: `${run}-`, subjectPrefix: run }),
      database: async () => {
        const database: ThrowawayDatabase = await createThrowawayDatabase(process.env['DATABASE_URL'] ?? DEFAULT_TEST_DATABASE_URL, 'resource_store');
        return { options: { kind: 'postgres', url: database.url }, drop: () => database.drop() };
      },
    },
    {
      name: 'in-process + PGlite',
      messaging: () => inProcessMessaging(),
      database: async () => ({ options: { kind: 'pglite' } }),
    },
  ];
}

/** The store's module on the given bus and database, serving its RPCs (limits: `TEST_QUOTA_BYTES` and the default per resource, unless given). */
export async function bootResourceStore(
  messaging: MessagingOptions,
  database: DatabaseOptions,
  seed: boolean,
  limits: { tenantQuotaBytes?: number; maxResourceBytes?: number } = {},
): Promise<INestApplication> {
  @Module({ imports: [MessagingModule.forRoot(messaging), ResourceStoreModule.register({ database, seed, tenantQuotaBytes: TEST_QUOTA_BYTES, ...limits })] })
  class TestModule {}
  const app = await NestFactory.create(TestModule, new FastifyAdapter(), { logger: ['error'] });
  app.connectMicroservice(microserviceOptions(messaging), { inheritAppConfig: true });
  await app.init();
  await app.startAllMicroservices();
  return app;
}

/** The wire error a rejected request carried. */
export async function errorOf(promise: Promise<unknown>): Promise<RpcError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof RpcError) return error;
    throw error;
  }
  throw new Error('expected the request to fail');
}
