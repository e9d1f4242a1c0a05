import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { httpServerSettings, loadDotEnvFile } from '@mcp-platform/shared-config';
import { natsMessaging } from '@mcp-platform/shared-messaging';
import { exitOnStartFailure, runService } from '@mcp-platform/shared-observability';
import { configureAdminOpenApi } from './admin/admin-openapi';
import { AppModule } from './app.module';
import { configureAuthorizationServerHttp } from './authorization-server.http';
import { loadAuthorizationServerEnv } from './config/env.schema';

async function main(): Promise<void> {
  // The working directory's .env, under what the environment already says.
  loadDotEnvFile();
  const env = loadAuthorizationServerEnv();
  const messaging = natsMessaging('authorization-server', env);
  const boot = {
    // 24 random characters when none is configured; the seed logs it once.
    demoUserPassword: env.DEMO_USER_PASSWORD ?? randomBytes(18).toString('base64url'),
    demoUserPasswordGenerated: env.DEMO_USER_PASSWORD === undefined,
    ...(env.CIMD_CA_FILE ? { cimdCaPem: readFileSync(env.CIMD_CA_FILE, 'utf8') } : {}),
  };
  await runService({
    module: AppModule.forRoot(env, messaging, boot),
    messaging,
    host: env.HOST,
    port: env.PORT,
    configure: (app) => {
      configureAuthorizationServerHttp(app);
      configureAdminOpenApi(app);
    },
    // The sign-in throttle counts per client address: behind a trusted proxy, the forwarded one.
    fastify: { trustProxy: env.TRUST_PROXY },
    ...httpServerSettings(env),
  });
}

void main().catch((error: unknown) => exitOnStartFailure(error));
