import 'reflect-metadata';
import { resolve } from 'node:path';
import { httpServerSettings, loadDotEnvFile } from '@mcp-platform/shared-config';
import { exitOnStartFailure } from '@mcp-platform/shared-observability';
import { upstreamOptionsOf } from '@mcp-platform/tool-executor';
import { IN_MEMORY_DATA_DIR, loadStandaloneEnv } from './config/env.schema';
import { readyBanner } from './ready-banner';
import { startStandalone } from './start-standalone';

async function main(): Promise<void> {
  // The working directory's .env, under what the environment already says.
  loadDotEnvFile();
  const env = loadStandaloneEnv();
  const dataDir = env.DATA_DIR === IN_MEMORY_DATA_DIR ? undefined : resolve(env.DATA_DIR);
  const platform = await startStandalone({
    host: env.HOST,
    port: env.PORT,
    publicUrl: env.PUBLIC_URL,
    allowedHosts: env.ALLOWED_HOSTS,
    allowedOrigins: env.ALLOWED_ORIGINS,
    bodyLimitBytes: env.BODY_LIMIT_BYTES,
    sseRetryMs: env.SSE_RETRY_MS,
    taskOperationsPerMinute: env.TASK_OPERATIONS_PER_MINUTE,
    legacySessionLimits: { perCaller: env.LEGACY_SESSIONS_PER_CALLER, perTenant: env.LEGACY_SESSIONS_PER_TENANT, total: env.LEGACY_SESSIONS_MAX },
    listenStreamsPerCaller: env.LISTEN_STREAMS_PER_CALLER,
    trustProxy: env.TRUST_PROXY,
    ...httpServerSettings(env),
    dataDir,
    allowPrivateNetworks: env.TOOL_HTTP_ALLOW_PRIVATE_NETWORKS,
    upstreams: upstreamOptionsOf(env),
    logLevel: env.LOG_LEVEL,
    logFormat: env.LOG_FORMAT,
    ...(env.DEMO_USER_PASSWORD ? { demoUserPassword: env.DEMO_USER_PASSWORD } : {}),
    ...(env.ADMIN_USERNAME && env.ADMIN_PASSWORD ? { adminUser: { username: env.ADMIN_USERNAME, password: env.ADMIN_PASSWORD } } : {}),
    devAnonymousTenants: env.DEV_ANONYMOUS_TENANTS,
  });
  const servers = await platform.listVirtualServers();
  // For the person at the terminal: the last thing a start prints.
  process.stdout.write(
    readyBanner({
      mode: 'embedded',
      url: platform.url,
      servers,
      dataDir,
      pid: process.pid,
      auth: { authUrl: platform.authUrl, demoUser: platform.demoUser, ...(platform.adminUser ? { adminUsername: platform.adminUser.username } : {}) },
    }),
  );
}

void main().catch((error: unknown) => exitOnStartFailure(error));
