import 'reflect-metadata';
import { runService } from '@mcp-platform/shared-observability';
import type { MessagingOptions } from '@mcp-platform/shared-messaging';
import { AppModule } from './app.module';
import { loadToolExecutorEnv } from './config/env.schema';

async function main(): Promise<void> {
  const env = loadToolExecutorEnv();
  const messaging: MessagingOptions = { transport: 'nats', servers: env.NATS_URL, name: 'tool-executor' };
  await runService({ module: AppModule.forRoot(env, messaging), messaging, host: env.HOST, port: env.PORT });
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
