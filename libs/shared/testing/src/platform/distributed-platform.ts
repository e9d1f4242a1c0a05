import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createThrowawayDatabase, type ThrowawayDatabase } from '@mcp-platform/shared-persistence';
import { waitForHttpOk } from '../network/wait-until';
import type { PlatformAuth, PlatformCredentials } from './embedded-platform';
import { deleteBucketsWithPrefix } from './jetstream-buckets';
import { type TestInfrastructure, testInfrastructure, uniqueRunId } from './test-infrastructure';

/** What the dev-cluster module's `startCluster()` returns. */
export interface ClusterHandle {
  /** Base URLs of the session-broker replicas, e.g. `http://127.0.0.1:3100`. */
  brokerUrls: string[];
  /** The canonical MCP base URL every replica serves under (the first broker's). */
  publicUrl: string;
  authUrl: string;
  issuer: string;
  demoUser: PlatformCredentials;
  adminUser?: PlatformCredentials;
  /** Sends `signal` to broker replica `index` (as in `brokerUrls`); resolves once it exited. */
  signalBroker(index: number, signal: NodeJS.Signals): Promise<ProcessExit>;
  /** Sends `signal` to the process `name` (`tool-executor`, `task-scheduler`, ...); resolves once it exited. */
  signalProcess(name: string, signal: NodeJS.Signals): Promise<ProcessExit>;
  /** Starts the process `name` again (same port and environment) after it exited; resolves once it is ready. */
  restartProcess(name: string): Promise<void>;
  /** The processes as they run now (a restarted one has a new pid). */
  readonly processes: ReadonlyArray<{ name: string; app: string; port: number; pid: number | undefined }>;
  stop(): Promise<void>;
}

/** How a process ended: its exit code, or the signal that ended it. */
export interface ProcessExit {
  code: number | null;
  signal: string | null;
}

/** The dev-cluster module's entry point: the five apps as processes against real NATS and PostgreSQL. */
export type StartCluster = (options: { env: Record<string, string>; brokerReplicas?: number }) => Promise<ClusterHandle>;

/** Options of `bootDistributed`. */
export interface BootDistributedOptions {
  /** Number of session-broker processes (default 1). */
  brokerReplicas?: number;
  /** Extra environment for every app. */
  env?: Record<string, string>;
  /** Where NATS and PostgreSQL are (default: `DATABASE_URL`/`NATS_URL` with the CI defaults). */
  infrastructure?: TestInfrastructure;
  /** Env key under which the apps take a JetStream bucket prefix. */
  bucketPrefixEnv?: string;
  /** Prefix of the throwaway database's name (default `mcp_e2e`). */
  databasePrefix?: string;
  readyTimeoutMs?: number;
}

/** The distributed platform: real processes over real NATS and a database of its own. */
export interface DistributedPlatform extends PlatformAuth {
  readonly mode: 'distributed';
  /** Base URL of the first broker, without a trailing slash. */
  readonly baseUrl: string;
  readonly brokerUrls: readonly string[];
  readonly database: ThrowawayDatabase;
  readonly natsUrl: string;
  readonly bucketPrefix: string;
  /** The run's NATS subject prefix (`NATS_SUBJECT_PREFIX`): raw NATS clients of a test name subjects with it. */
  readonly subjectPrefix: string;
  /**
   * Sends `signal` to broker replica `index` (as in `brokerUrls`) and resolves once it exited, for tests
   * of a replica that crashes (SIGKILL) or drains in a rolling restart (SIGTERM); `stop()` still works.
   */
  signalBroker(index: number, signal: NodeJS.Signals): Promise<ProcessExit>;
  /**
   * Sends `signal` to one app's process by name (`tool-executor`, `task-scheduler`, `authorization-server`,
   * `resource-store`, `session-broker-<n>`) and resolves once it exited: crash tests of any app.
   */
  signalProcess(name: string, signal: NodeJS.Signals): Promise<ProcessExit>;
  /** Starts that process again, on its port with its environment, as an orchestrator would; resolves once it is ready. */
  restartProcess(name: string): Promise<void>;
  /** The pid of the process now running under `name` (`session-broker`, `session-broker-2`, `tool-executor`...): to read its memory. */
  pidOf(name: string): number;
  /** Stops the processes, drops the database and deletes the run's JetStream buckets. */
  stop(): Promise<void>;
}

/** Env key the apps read for the JetStream bucket prefix (see the apps' env schemas). */
export const BUCKET_PREFIX_ENV = 'NATS_BUCKET_PREFIX';

/** Env key the apps read for the NATS subject prefix (the `natsEnv` fragment of shared-config). */
export const SUBJECT_PREFIX_ENV = 'NATS_SUBJECT_PREFIX';

/**
 * Creates a throwaway `mcp_e2e_…` database on the PostgreSQL server, starts the cluster against it with a unique bucket
 * prefix and a unique subject prefix (so no other platform on the same NATS server answers this one), waits for every
 * broker's readiness probe, and undoes all of it on failure or `stop()`.
 */
export async function bootDistributed(startCluster: StartCluster, options: BootDistributedOptions = {}): Promise<DistributedPlatform> {
  const infrastructure = options.infrastructure ?? testInfrastructure();
  const runId = uniqueRunId();
  const bucketPrefix = `e2e_${runId}_`;
  // The caller's own prefix (in `env`) wins, and the handle reports the one the apps got.
  const subjectPrefix = options.env?.[SUBJECT_PREFIX_ENV] ?? `e2e_${runId}`;
  const database = await createThrowawayDatabase(infrastructure.databaseUrl, options.databasePrefix ?? 'mcp_e2e');
  // A platform admin of this run only, so admin-API tests need no other setup.
  const admin: PlatformCredentials = { username: `admin-${runId}`.toLowerCase(), password: randomBytes(18).toString('base64url') };
  let cluster: ClusterHandle | undefined;
  const cleanUp = async (): Promise<void> => {
    const failures: unknown[] = [];
    await cluster?.stop().catch((error: unknown) => failures.push(error));
    await database.drop().catch((error: unknown) => failures.push(error));
    await deleteBucketsWithPrefix(infrastructure.natsUrl, bucketPrefix).catch((error: unknown) => failures.push(error));
    if (failures.length > 0) throw new AggregateError(failures, 'cleaning up the distributed platform failed');
  };
  try {
    cluster = await startCluster({
      env: {
        DATABASE_URL: database.url,
        NATS_URL: infrastructure.natsUrl,
        [options.bucketPrefixEnv ?? BUCKET_PREFIX_ENV]: bucketPrefix,
        [SUBJECT_PREFIX_ENV]: subjectPrefix,
        ADMIN_USERNAME: admin.username,
        ADMIN_PASSWORD: admin.password,
        ...options.env,
      },
      brokerReplicas: options.brokerReplicas ?? 1,
    });
    const brokerUrls = cluster.brokerUrls.map((url) => url.replace(/\/+$/, ''));
    const first = brokerUrls[0];
    if (first === undefined) throw new Error('the cluster reported no broker URL');
    await Promise.all(
      brokerUrls.map((url) => waitForHttpOk(`${url}/health/ready`, { timeoutMs: options.readyTimeoutMs ?? 60_000, description: `broker ${url} to be ready` })),
    );
    let stopped = false;
    return {
      mode: 'distributed',
      baseUrl: first,
      authUrl: cluster.authUrl,
      issuer: cluster.issuer,
      demoUser: cluster.demoUser,
      ...(cluster.adminUser ? { adminUser: cluster.adminUser } : {}),
      brokerUrls,
      database,
      natsUrl: infrastructure.natsUrl,
      bucketPrefix,
      subjectPrefix,
      signalBroker: cluster.signalBroker.bind(cluster),
      signalProcess: cluster.signalProcess.bind(cluster),
      restartProcess: cluster.restartProcess.bind(cluster),
      pidOf(name) {
        const pid = cluster?.processes.find((entry) => entry.name === name)?.pid;
        if (pid === undefined) throw new Error(`no running process named ${name}`);
        return pid;
      },
      async stop() {
        if (stopped) return;
        stopped = true;
        await cleanUp();
      },
    };
  } catch (error) {
    await cleanUp().catch(() => undefined);
    throw error;
  }
}

/**
 * Imports the dev-cluster module (plain `.mjs` under `tools/`, by absolute path) and checks it exports
 * `startCluster`.
 */
export async function importClusterModule(modulePath: string): Promise<StartCluster> {
  const loaded = (await import(modulePath)) as { startCluster?: unknown };
  if (typeof loaded.startCluster !== 'function') throw new Error(`${modulePath} does not export startCluster()`);
  return loaded.startCluster as StartCluster;
}

/** Where the dev-cluster module lives (`npm run start:cluster` runs it through tools/dev-cluster.mjs). */
export const CLUSTER_MODULE = join('tools', 'cluster', 'cluster.mjs');

/**
 * The dev-cluster module's absolute path, so the tests, the conformance runner and the benchmark boot
 * the cluster exactly like `npm run start:cluster`.
 */
export function findClusterModule(repoRoot: string): string {
  const path = join(repoRoot, CLUSTER_MODULE);
  if (!existsSync(path)) throw new Error(`the dev-cluster module is missing: ${path}`);
  return path;
}
