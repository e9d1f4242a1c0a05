import { type DynamicModule, Module } from '@nestjs/common';
import { MessagingModule, type MessagingOptions } from '@mcp-platform/shared-messaging';
import { HealthModule, LoggingModule } from '@mcp-platform/shared-observability';
import { databaseHealthChecks } from '@mcp-platform/shared-persistence';
import { AUTHORIZATION_SERVER_CONNECTION } from './authorization-server.constants';
import { AuthorizationServerModule } from './authorization-server.module';
import type { AuthorizationServerOptions } from './authorization-server.options';
import type { AuthorizationServerEnv } from './config/env.schema';

/** What the process knows besides its environment: values `main.ts` read or made at boot. */
export interface AuthorizationServerBootValues {
  /** The demo user's password: `DEMO_USER_PASSWORD`, or one generated at boot (then it is logged once). */
  demoUserPassword: string;
  demoUserPasswordGenerated: boolean;
  /** The contents of `CIMD_CA_FILE`. */
  cimdCaPem?: string;
}

/** The app's options from its validated environment. */
export function authorizationServerOptionsFromEnv(env: AuthorizationServerEnv, boot: AuthorizationServerBootValues): AuthorizationServerOptions {
  return {
    database: { kind: 'postgres', url: env.DATABASE_URL },
    publicUrl: env.AUTH_PUBLIC_URL,
    mcpPublicUrl: env.MCP_PUBLIC_URL,
    seed: env.SEED ? { demoUserPassword: boot.demoUserPassword, logDemoUserPassword: boot.demoUserPasswordGenerated } : false,
    ...(env.ADMIN_USERNAME && env.ADMIN_PASSWORD ? { bootstrapAdmin: { username: env.ADMIN_USERNAME, password: env.ADMIN_PASSWORD } } : {}),
    accessTokenTtlSeconds: env.ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: env.REFRESH_TOKEN_TTL_SECONDS,
    keyRotationDays: env.KEY_ROTATION_DAYS,
    ...(env.AUTH_KEY_ENCRYPTION_SECRET ? { keyEncryptionSecret: env.AUTH_KEY_ENCRYPTION_SECRET } : {}),
    cimd: { allowedHosts: env.CIMD_ALLOWED_HOSTS, ...(boot.cimdCaPem ? { caPem: boot.cimdCaPem } : {}) },
    trustProxy: env.TRUST_PROXY,
    adminUploadLimitBytes: env.ADMIN_UPLOAD_LIMIT_BYTES,
  };
}

/** The authorization server as its own process (distributed mode). */
@Module({})
export class AppModule {
  static forRoot(env: AuthorizationServerEnv, messaging: MessagingOptions, boot: AuthorizationServerBootValues): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forRoot({ name: 'authorization-server', level: env.LOG_LEVEL, format: env.LOG_FORMAT }),
        MessagingModule.forRoot(messaging),
        // Ready means its database answers too.
        HealthModule.forRoot({ checks: databaseHealthChecks([AUTHORIZATION_SERVER_CONNECTION]) }),
        AuthorizationServerModule.register(authorizationServerOptionsFromEnv(env, boot)),
      ],
    };
  }
}
