import 'reflect-metadata';
import { runService } from '@mcp-platform/shared-observability';
import type { MessagingOptions } from '@mcp-platform/shared-messaging';
import { AppModule } from './app.module';
import { loadAuthorizationServerEnv } from './config/env.schema';

async function main(): Promise<void> {
  const env = loadAuthorizationServerEnv();
  const messaging: MessagingOptions = { transport: 'nats', servers: env.NATS_URL, name: 'authorization-server' };
  await runService({ module: AppModule.forRoot(env, messaging), messaging, host: env.HOST, port: env.PORT });
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
