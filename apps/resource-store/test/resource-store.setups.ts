import 'reflect-metadata';
import type { INestApplication, Type } from '@nestjs/common';
import type { MessagingOptions } from '@mcp-platform/shared-messaging';
import type { DatabaseOptions } from '@mcp-platform/shared-persistence';
import { bootService, type ServiceSetup, serviceSetups } from '@mcp-platform/shared-testing';
import { ResourceStoreModule } from '../src';

/** What only the resource store's integration suites need beside the shared setups of `@mcp-platform/shared-testing`. */

/** A small quota, so the refusal is cheap to reach (the seeds take a few KiB). */
export const TEST_QUOTA_BYTES = 64 * 1024;

/** Both setups; `run` isolates this suite's NATS subjects, buckets and client name. */
export function setups(run: string): ServiceSetup[] {
  return serviceSetups('resource-store', run);
}

/**
 * The store's module on the given bus and database, serving its RPCs (limits: `TEST_QUOTA_BYTES` and the
 * default per resource, unless given), with `peers`: controllers playing other apps on the same bus.
 */
export function bootResourceStore(
  messaging: MessagingOptions,
  database: DatabaseOptions,
  seed: boolean,
  limits: { tenantQuotaBytes?: number; maxResourceBytes?: number } = {},
  peers: Array<Type<unknown>> = [],
): Promise<INestApplication> {
  return bootService(messaging, ResourceStoreModule.register({ database, seed, tenantQuotaBytes: TEST_QUOTA_BYTES, ...limits }), { controllers: peers });
}
