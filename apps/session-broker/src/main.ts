import 'reflect-metadata';
import { httpServerSettings, loadDotEnvFile } from '@mcp-platform/shared-config';
import { natsMessaging } from '@mcp-platform/shared-messaging';
import { exitOnStartFailure, runService } from '@mcp-platform/shared-observability';
import { AppModule } from './app.module';
import { loadSessionBrokerEnv } from './config/env.schema';
import { configureSessionBrokerHttp } from './session-broker.http';
import { defaultAllowLists, type SessionBrokerOptions } from './session-broker.options';

async function main(): Promise<void> {
  // The working directory's .env, under what the environment already says.
  loadDotEnvFile();
  const env = loadSessionBrokerEnv();
  const publicUrl = env.PUBLIC_URL ?? `http://${env.HOST.includes(':') ? `[${env.HOST}]` : env.HOST}:${env.PORT}`;
  const defaults = defaultAllowLists(publicUrl, env.PORT);
  const broker: SessionBrokerOptions = {
    publicUrl,
    allowedHosts: env.ALLOWED_HOSTS.length ? env.ALLOWED_HOSTS : defaults.allowedHosts,
    allowedOrigins: env.ALLOWED_ORIGINS.length ? env.ALLOWED_ORIGINS : defaults.allowedOrigins,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    sessionTtlSeconds: env.SESSION_TTL_SECONDS,
    legacySessionLimits: { perCaller: env.LEGACY_SESSIONS_PER_CALLER, perTenant: env.LEGACY_SESSIONS_PER_TENANT, total: env.LEGACY_SESSIONS_MAX },
    listenStreamsPerCaller: env.LISTEN_STREAMS_PER_CALLER,
    sseRetryMs: env.SSE_RETRY_MS,
    taskOperationsPerMinute: env.TASK_OPERATIONS_PER_MINUTE,
    announceVirtualServers: env.ANNOUNCE_VIRTUAL_SERVERS,
    auth: { issuer: env.AUTH_ISSUER, anonymousTenants: env.DEV_ANONYMOUS_TENANTS },
    ...(env.REPLICA_ID ? { replicaId: env.REPLICA_ID } : {}),
    ...(env.REQUEST_STATE_KEYS.length ? { requestStateKeys: env.REQUEST_STATE_KEYS } : {}),
  };
  const messaging = natsMessaging('session-broker', env);
  await runService({
    module: AppModule.forRoot({ logLevel: env.LOG_LEVEL, logFormat: env.LOG_FORMAT, messaging, broker }),
    messaging,
    host: env.HOST,
    port: env.PORT,
    configure: (app) => configureSessionBrokerHttp(app, broker),
    // Anonymous callers are counted by their address: behind a trusted proxy, the forwarded one.
    fastify: { trustProxy: env.TRUST_PROXY },
    ...httpServerSettings(env),
  });
}

void main().catch((error: unknown) => exitOnStartFailure(error));
