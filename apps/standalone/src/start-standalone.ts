import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { configureAdminOpenApi, configureAuthorizationServerHttp, DEMO_USERNAME } from '@mcp-platform/authorization-server';
import { toolExecutor } from '@mcp-platform/protocol-contracts';
import {
  configureSessionBrokerHttp,
  defaultAllowLists,
  generateRequestStateKey,
  type LegacySessionLimits,
  type SessionBrokerOptions,
} from '@mcp-platform/session-broker';
import { inProcessMessaging, MessageBus } from '@mcp-platform/shared-messaging';
import { type HttpTimeouts, type LoggingOptions, runService } from '@mcp-platform/shared-observability';
import type { DatabaseOptions } from '@mcp-platform/shared-persistence';
import type { UpstreamOptions } from '@mcp-platform/tool-executor';
import { AppModule } from './app.module';
import { DataDirectory } from './data-directory/data-directory';
import { type VirtualServerEndpoint, virtualServerUrl } from './ready-banner';

/** How to run the embedded platform; every field has a default fit for tests. */
export interface StandaloneOptions {
  /** Listen address (default `127.0.0.1`; other addresses only on purpose, S-73). */
  host?: string;
  /** Listen port; `0` (the default) picks a free one, for tests. */
  port?: number;
  /** The base URL clients use (default `http://<host>:<port>`). */
  publicUrl?: string;
  /** `Host` allow-list (default: the public URL's host plus the loopback names at the port). */
  allowedHosts?: string[];
  /** `Origin` allow-list (default: the public URL's origin plus the loopback origins at the port). */
  allowedOrigins?: string[];
  /** Largest accepted POST body in bytes (default 4 MiB). */
  bodyLimitBytes?: number;
  /** The SSE `retry` delay on resumable legacy streams, in ms (default 1000). */
  sseRetryMs?: number;
  /** Task operations one requester may make per minute (default 600; `0`: no limit), S-291. */
  taskOperationsPerMinute?: number;
  /** Caps on legacy sessions: per caller, per tenant, in all (defaults: the broker's). */
  legacySessionLimits?: Partial<LegacySessionLimits>;
  /** `subscriptions/listen` streams one caller holds open (default: the broker's). */
  listenStreamsPerCaller?: number;
  /** Whose `X-Forwarded-For` is believed for the client's address (Fastify's `trustProxy`; default nobody). */
  trustProxy?: boolean | string[];
  /** The HTTP server's header, request and keep-alive timeouts (defaults: `runService`'s). */
  httpTimeouts?: Partial<HttpTimeouts>;
  /** How long calls in flight get to finish at shutdown, in milliseconds (default: `runService`'s, 10 s). */
  shutdownGraceMs?: number;
  /**
   * The data directory (database and generated secrets, locked while the platform runs); absent keeps
   * everything in memory (tests).
   */
  dataDir?: string;
  /** Let HTTP tools reach private networks (default false: the SSRF guard refuses them). */
  allowPrivateNetworks?: boolean;
  /** How upstream MCP servers are reached; without a `secretsKey`, one is generated once and kept in the data directory. */
  upstreams?: Partial<UpstreamOptions>;
  /** pino level (default `info`; tests pass `silent` or `warn`). */
  logLevel?: LoggingOptions['level'];
  /** `json` or `pretty` records (default: pretty on a terminal, JSON otherwise). */
  logFormat?: LoggingOptions['format'];
  /** Password of the seeded demo user (default: the one kept in the data directory, else a fresh random one; reported by the handle). */
  demoUserPassword?: string;
  /** A platform admin created at boot when none exists (the admin API's first user). */
  adminUser?: { username: string; password: string };
  /** Client ID Metadata Documents: private hosts allowed and an extra trusted CA (tests, private PKI). */
  cimd?: { allowedHosts?: string[]; caPem?: string };
  /** Development switch: tenants whose protected servers accept anonymous callers (off; logged loudly). */
  devAnonymousTenants?: string[];
  /** Access token lifetime in seconds (default 600; tests shorten it to see refresh at work). */
  accessTokenTtlSeconds?: number;
}

/** The running embedded platform. */
export interface StandaloneHandle {
  /** Base URL it serves, without a trailing slash, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** The authorization server's public origin: the same origin in this mode (admin API at `<authUrl>/admin/v1`). */
  authUrl: string;
  /** The OAuth issuer, `<authUrl>/oauth`. */
  issuer: string;
  /** The seeded demo user (tenant `demo`). */
  demoUser: { username: string; password: string };
  /** The bootstrap platform admin, when one was configured. */
  adminUser?: { username: string; password: string };
  /** Every virtual server with its MCP URL, asked of the tool executor over the bus. */
  listVirtualServers(): Promise<VirtualServerEndpoint[]>;
  /** Stops the HTTP server, the bus and the database; safe to call twice. */
  close(): Promise<void>;
}

const DEFAULT_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/** The apps this process runs, named in its ready line. */
const EMBEDDED_APPS = ['authorization-server', 'resource-store', 'task-scheduler', 'tool-executor', 'session-broker'] as const;

/**
 * Boots the five apps in this process (DESIGN.md §5): one Fastify server, the in-process bus and
 * PGlite. Resolves once it serves; `npm start` and the e2e tests both come through here.
 */
export async function startStandalone(options: StandaloneOptions = {}): Promise<StandaloneHandle> {
  const host = options.host ?? '127.0.0.1';
  // The broker needs its public URL (and the allow-lists built from it) before the app exists, so a
  // free port is found first rather than read back after `listen(0)`.
  const port = options.port ? options.port : await findFreePort(host);
  const url = (options.publicUrl ?? `http://${urlHost(host)}:${port}`).replace(/\/+$/, '');
  // Taken first: a directory another process uses must not be opened (PGlite takes no lock).
  const dataDirectory = options.dataDir === undefined ? undefined : DataDirectory.open(options.dataDir);
  try {
    return await startOn(dataDirectory, host, port, url, options);
  } catch (error) {
    dataDirectory?.release();
    throw error;
  }
}

/** The rest of `startStandalone`, once the data directory (if any) is held. */
async function startOn(
  dataDirectory: DataDirectory | undefined,
  host: string,
  port: number,
  url: string,
  options: StandaloneOptions,
): Promise<StandaloneHandle> {
  // One origin serves everything in this mode: MCP endpoints, the OAuth issuer and the admin API.
  const issuer = `${url}/oauth`;
  // Generated once and kept with the data, so the password printed yesterday still signs in today.
  const generatePassword = (): string => randomBytes(12).toString('base64url');
  const demoPassword = options.demoUserPassword ?? dataDirectory?.secret('demo-user-password', generatePassword) ?? generatePassword();
  const demoUser = { username: DEMO_USERNAME, password: demoPassword };
  const broker = brokerOptions(url, port, issuer, options, dataDirectory);
  // The lock goes once PGlite has closed its files (a stop by signal too), never while it may still write.
  const database: DatabaseOptions = dataDirectory
    ? { kind: 'pglite', dataDir: dataDirectory.databasePath, onClosed: () => dataDirectory.release() }
    : { kind: 'pglite' };
  const messaging = inProcessMessaging();
  const app = await runService({
    module: AppModule.forRoot({
      logLevel: options.logLevel ?? 'info',
      logFormat: options.logFormat,
      messaging,
      broker,
      authorizationServer: {
        database,
        publicUrl: url,
        mcpPublicUrl: url,
        seed: { demoUserPassword: demoUser.password },
        ...(options.adminUser ? { bootstrapAdmin: options.adminUser } : {}),
        ...(options.cimd ? { cimd: options.cimd } : {}),
        ...(options.accessTokenTtlSeconds === undefined ? {} : { accessTokenTtlSeconds: options.accessTokenTtlSeconds }),
      },
      toolExecutor: {
        database,
        seed: true,
        http: { allowPrivateNetworks: options.allowPrivateNetworks ?? false },
        upstreams: {
          ...options.upstreams,
          // Sources' secrets are sealed with it: kept with the data, or they could not be opened after a restart.
          secretsKey: options.upstreams?.secretsKey ?? dataDirectory?.secret('tool-secrets-key', generateSecretsKey) ?? generateSecretsKey(),
        },
      },
      resourceStore: { database, seed: true },
      taskScheduler: { database },
    }),
    messaging,
    host,
    port,
    apps: EMBEDDED_APPS,
    configure: (nest) => {
      configureSessionBrokerHttp(nest, broker);
      configureAuthorizationServerHttp(nest);
      configureAdminOpenApi(nest);
    },
    ...(options.trustProxy === undefined ? {} : { fastify: { trustProxy: options.trustProxy } }),
    ...(options.httpTimeouts === undefined ? {} : { httpTimeouts: options.httpTimeouts }),
    ...(options.shutdownGraceMs === undefined ? {} : { shutdownGraceMs: options.shutdownGraceMs }),
  });

  let closing: Promise<void> | undefined;
  return {
    url,
    authUrl: url,
    issuer,
    demoUser,
    ...(options.adminUser ? { adminUser: options.adminUser } : {}),
    async listVirtualServers() {
      const { servers } = await app.get(MessageBus).request(toolExecutor.listVirtualServers, {});
      return servers
        .map((server) => ({ tenant: server.tenant, name: server.name, title: server.title, public: server.public, url: virtualServerUrl(url, server) }))
        .sort((a, b) => a.url.localeCompare(b.url));
    },
    close() {
      closing ??= app.close().finally(() => dataDirectory?.release());
      return closing;
    },
  };
}

/** A key for sealing tool sources' secrets: 32 random bytes. */
function generateSecretsKey(): string {
  return randomBytes(32).toString('base64url');
}

/** A port nobody listens on right now (the OS picks it). */
function findFreePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port assigned'))));
    });
  });
}

/** IPv6 literals need brackets in a URL. */
function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

/** The session broker's options in this mode: one origin, one process, keys kept with the data. */
function brokerOptions(url: string, port: number, issuer: string, options: StandaloneOptions, dataDirectory: DataDirectory | undefined): SessionBrokerOptions {
  const defaults = defaultAllowLists(url, port);
  return {
    publicUrl: url,
    allowedHosts: options.allowedHosts?.length ? options.allowedHosts : defaults.allowedHosts,
    allowedOrigins: options.allowedOrigins?.length ? options.allowedOrigins : defaults.allowedOrigins,
    bodyLimitBytes: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    ...(options.sseRetryMs === undefined ? {} : { sseRetryMs: options.sseRetryMs }),
    ...(options.taskOperationsPerMinute === undefined ? {} : { taskOperationsPerMinute: options.taskOperationsPerMinute }),
    ...(options.legacySessionLimits === undefined ? {} : { legacySessionLimits: options.legacySessionLimits }),
    ...(options.listenStreamsPerCaller === undefined ? {} : { listenStreamsPerCaller: options.listenStreamsPerCaller }),
    // No other replica to hand a call's stream to, and the executor stops with this process: at shutdown
    // calls finish within the grace or end with an error.
    drainHandsOff: false,
    // The host prints the URLs itself (see main.ts), once, after everything is up.
    announceVirtualServers: false,
    auth: { issuer, anonymousTenants: options.devAnonymousTenants ?? [] },
    // One process opens every request state it seals: a key of its own is all it needs, kept with the
    // data so a multi round-trip request survives a restart.
    requestStateKeys: [dataDirectory?.secret('request-state-key', generateRequestStateKey) ?? generateRequestStateKey()],
  };
}
