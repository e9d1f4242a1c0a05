import 'reflect-metadata';
import { runService } from '@mcp-platform/shared-observability';
import type { MessagingOptions } from '@mcp-platform/shared-messaging';
import { AppModule } from './app.module';
import { loadResourceStoreEnv } from './config/env.schema';

async function main(): Promise<void> {
  const env = loadResourceStoreEnv();
  const messaging: MessagingOptions = { transport: 'nats', servers: env.NATS_URL, name: 'resource-store' };
  await runService({ module: AppModule.forRoot(env, messaging), messaging, host: env.HOST, port: env.PORT });
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
