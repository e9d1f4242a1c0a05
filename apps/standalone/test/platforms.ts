import { randomBytes } from 'node:crypto';
import { connect } from 'nats';
import { vi } from 'vitest';
import { toolExecutor } from '@mcp-platform/protocol-contracts';
import { InProcessHub, SubjectNaming } from '@mcp-platform/shared-messaging';
import {
  bootDistributed,
  bootEmbedded,
  type DistributedPlatform,
  type EmbeddedPlatform,
  findClusterModule,
  findRepoRoot,
  importClusterModule,
  mcpUrl,
} from '@mcp-platform/shared-testing';
import { startStandalone } from '../src/index';

/** The platform under test, in either mode. */
export type Platform = EmbeddedPlatform | DistributedPlatform;

/** What a test file may ask of the platform it boots (both modes honour each option). */
export interface BootOptions {
  /**
   * Client ID Metadata Documents served by the test's own HTTPS host (`startClientMetadataHost`):
   * the hosts exempt from the SSRF guard and the host's self-signed certificate, as PEM and as a file.
   */
  cimd?: { allowedHosts: string[]; caPem: string; caFile: string };
  /** Access token lifetime in seconds (the authorization server accepts 60 and more; default 600). */
  accessTokenTtlSeconds?: number;
  /** The HTTP servers' header and request timeouts, in seconds (defaults 10 and 30). */
  httpTimeouts?: { headersSeconds: number; requestSeconds: number };
  /** How long calls in flight get at shutdown, in seconds (default 10). */
  shutdownGraceSeconds?: number;
  /** The `Origin` allow-list of the MCP endpoints (default: the platform's own origin and the loopback ones at its port). */
  allowedOrigins?: string[];
  /** Hosts upstream MCP servers may be reached at although private (`UPSTREAM_ALLOWED_HOSTS`), e.g. a fixture on 127.0.0.1. */
  upstreamAllowedHosts?: string[];
}

/** One mode of the e2e tier: its name and how to boot it (once per file). */
export interface PlatformMode {
  name: 'embedded' | 'distributed';
  boot(options?: BootOptions): Promise<Platform>;
}

/**
 * The embedded platform in this process (PGlite in memory, in-process bus), on a free port, with a
 * platform admin of this run (the distributed mode creates one the same way).
 */
export function embeddedMode(): PlatformMode {
  return {
    name: 'embedded',
    boot: (options = {}) => {
      const embedded: Parameters<typeof startStandalone>[0] = {
        port: 0,
        logLevel: 'silent',
        adminUser: { username: `admin-${randomBytes(4).toString('hex')}`, password: randomBytes(18).toString('base64url') },
        ...(options.cimd ? { cimd: { allowedHosts: options.cimd.allowedHosts, caPem: options.cimd.caPem } } : {}),
        ...(options.accessTokenTtlSeconds === undefined ? {} : { accessTokenTtlSeconds: options.accessTokenTtlSeconds }),
        ...(options.httpTimeouts
          ? { httpTimeouts: { headersTimeoutMs: options.httpTimeouts.headersSeconds * 1_000, requestTimeoutMs: options.httpTimeouts.requestSeconds * 1_000 } }
          : {}),
        ...(options.shutdownGraceSeconds === undefined ? {} : { shutdownGraceMs: options.shutdownGraceSeconds * 1_000 }),
        ...(options.allowedOrigins === undefined ? {} : { allowedOrigins: options.allowedOrigins }),
        ...(options.upstreamAllowedHosts === undefined ? {} : { upstreams: { allowedHosts: options.upstreamAllowedHosts } }),
      };
      return bootEmbedded(startStandalone, embedded);
    },
  };
}

/** Five processes (plus extra broker replicas) over the real NATS and a throwaway PostgreSQL database. */
export function distributedMode(brokerReplicas = 1): PlatformMode {
  return {
    name: 'distributed',
    boot: async (options = {}) => {
      const startCluster = await importClusterModule(findClusterModule(findRepoRoot()));
      const env: Record<string, string> = { LOG_LEVEL: 'warn' };
      if (options.cimd) {
        env['CIMD_ALLOWED_HOSTS'] = options.cimd.allowedHosts.join(',');
        env['CIMD_CA_FILE'] = options.cimd.caFile;
      }
      if (options.accessTokenTtlSeconds !== undefined) env['ACCESS_TOKEN_TTL_SECONDS'] = String(options.accessTokenTtlSeconds);
      if (options.httpTimeouts) {
        env['HTTP_HEADERS_TIMEOUT_SECONDS'] = String(options.httpTimeouts.headersSeconds);
        env['HTTP_REQUEST_TIMEOUT_SECONDS'] = String(options.httpTimeouts.requestSeconds);
      }
      if (options.shutdownGraceSeconds !== undefined) env['SHUTDOWN_GRACE_SECONDS'] = String(options.shutdownGraceSeconds);
      if (options.allowedOrigins !== undefined) env['ALLOWED_ORIGINS'] = options.allowedOrigins.join(',');
      if (options.upstreamAllowedHosts !== undefined) env['UPSTREAM_ALLOWED_HOSTS'] = options.upstreamAllowedHosts.join(',');
      // Sources' secrets are sealed with it; the embedded mode generates its own.
      env['TOOL_SECRETS_KEY'] = randomBytes(32).toString('base64url');
      return bootDistributed(startCluster, { brokerReplicas, env });
    },
  };
}

/** The credentials of the run's platform admin (both modes boot with one). */
export function adminUserOf(platform: Platform): { username: string; password: string } {
  if (platform.adminUser === undefined) throw new Error('the platform was booted without a platform admin');
  return platform.adminUser;
}

/** MCP URLs of the two seeded virtual servers on one broker. */
export function seededUrls(baseUrl: string): { demo: string; conformance: string } {
  return { demo: mcpUrl(baseUrl, 'demo', 'default'), conformance: mcpUrl(baseUrl, 'conformance', 'everything') };
}

/** Watches the bus for `callCancelled` events, the message that tells the executor to stop a call. */
export interface CancellationWatch {
  /** The raw payloads seen so far (JSON text). */
  seen(): string[];
  stop(): Promise<void>;
}

/**
 * Embedded: a spy on the in-process hub's `publish` (the executor's subscription is fed from it).
 * Distributed: a plain subscription on the real NATS subject the executor listens to (under the run's
 * subject prefix).
 */
export async function watchCancellations(platform: Platform): Promise<CancellationWatch> {
  const subject = toolExecutor.callCancelled.subject;
  const seen: string[] = [];
  if (platform.mode === 'embedded') {
    const original = InProcessHub.prototype.publish;
    const spy = vi.spyOn(InProcessHub.prototype, 'publish').mockImplementation(function (this: InProcessHub, published, data, headers) {
      if (published === subject) seen.push(data);
      original.call(this, published, data, headers);
    });
    return {
      seen: () => [...seen],
      stop: async () => spy.mockRestore(),
    };
  }
  const connection = await connect({ servers: platform.natsUrl.split(','), name: 'e2e-cancel-watch' });
  const subscription = connection.subscribe(new SubjectNaming(platform.subjectPrefix).subjectOf(toolExecutor.callCancelled), {
    callback: (error, message) => {
      if (!error) seen.push(new TextDecoder().decode(message.data));
    },
  });
  await connection.flush();
  return {
    seen: () => [...seen],
    stop: async () => {
      subscription.unsubscribe();
      await connection.close();
    },
  };
}
