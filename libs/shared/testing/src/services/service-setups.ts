import { inProcessMessaging, type MemoryWorkQueue, type MessagingOptions } from '@mcp-platform/shared-messaging';
import { createThrowawayDatabase, type DatabaseOptions } from '@mcp-platform/shared-persistence';
import { type TestInfrastructure, testInfrastructure } from '../platform/test-infrastructure';

/** The two ways an integration suite runs a service: distributed (the real servers) and embedded. */
export type ServiceSetupName = 'NATS + PostgreSQL' | 'in-process + PGlite';

/** A suite's database, and how to drop it again (PGlite needs no drop). */
export interface PreparedDatabase {
  options: DatabaseOptions;
  drop?: () => Promise<void>;
}

/** One of the two setups of a service's integration suite. */
export interface ServiceSetup {
  name: ServiceSetupName;
  /**
   * The bus of one replica; `replica` tells the NATS client names apart. Over NATS every replica shares
   * the run's subjects, buckets and streams; in process each call is a new bus (a new process).
   */
  messaging: (replica?: string) => MessagingOptions;
  /** A throwaway PostgreSQL database on the CI server, or PGlite in this process. */
  database: () => Promise<PreparedDatabase>;
}

export interface ServiceSetupsOptions {
  /**
   * The in-process setup's work queue, a new one per bus (e.g. one whose next enqueue fails);
   * `inProcessMessaging()`'s memory queue otherwise.
   */
  workQueue?: () => MemoryWorkQueue;
  /** Where PostgreSQL and NATS run; `testInfrastructure()` otherwise. */
  infrastructure?: TestInfrastructure;
}

/**
 * NATS options for one client of one run: the run's bucket and subject prefixes keep parallel runs on
 * one server apart (STYLE.md §11).
 */
export function isolatedNatsMessaging(
  name: string,
  run: string,
  infrastructure: TestInfrastructure = testInfrastructure(),
): Extract<MessagingOptions, { transport: 'nats' }> {
  return { transport: 'nats', servers: infrastructure.natsUrl, name, bucketPrefix: `${run}-`, subjectPrefix: run };
}

/**
 * Both setups of `service` (an app's name, e.g. `task-scheduler`) for the run `run`: NATS clients named
 * `<service>-test-<run>[-<replica>]`, and a throwaway database `<service_with_underscores>_<unique>`.
 * The NATS + PostgreSQL setup never skips: without the servers its suite fails.
 */
export function serviceSetups(service: string, run: string, options: ServiceSetupsOptions = {}): ServiceSetup[] {
  if (!/^[a-z][a-z0-9-]*$/.test(service)) throw new Error(`not a service name: ${service}`);
  const infrastructure = options.infrastructure ?? testInfrastructure();
  return [
    {
      name: 'NATS + PostgreSQL',
      messaging: (replica) =>
        isolatedNatsMessaging(replica === undefined ? `${service}-test-${run}` : `${service}-test-${run}-${replica}`, run, infrastructure),
      database: async () => {
        const database = await createThrowawayDatabase(infrastructure.databaseUrl, service.replaceAll('-', '_'));
        return { options: { kind: 'postgres', url: database.url }, drop: () => database.drop() };
      },
    },
    {
      name: 'in-process + PGlite',
      messaging: () => (options.workQueue ? { ...inProcessMessaging(), workQueue: options.workQueue() } : inProcessMessaging()),
      database: async () => ({ options: { kind: 'pglite' } }),
    },
  ];
}
