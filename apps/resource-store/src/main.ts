import 'reflect-metadata';
import { httpServerSettings } from '@mcp-platform/shared-config';
import { runService } from '@mcp-platform/shared-observability';
import { natsMessaging } from '@mcp-platform/shared-messaging';
import { AppModule } from './app.module';
import { loadResourceStoreEnv } from './config/env.schema';

async function main(): Promise<void> {
  const env = loadResourceStoreEnv();
  const messaging = natsMessaging('resource-store', env);
  await runService({ module: AppModule.forRoot(env, messaging), messaging, host: env.HOST, port: env.PORT, ...httpServerSettings(env) });
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
