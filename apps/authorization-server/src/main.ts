import 'reflect-metadata';
import { runService } from '@mcp-platform/shared-observability';
import { natsMessaging } from '@mcp-platform/shared-messaging';
import { AppModule } from './app.module';
import { loadAuthorizationServerEnv } from './config/env.schema';

async function main(): Promise<void> {
  const env = loadAuthorizationServerEnv();
  const messaging = natsMessaging('authorization-server', env);
  await runService({ module: AppModule.forRoot(env, messaging), messaging, host: env.HOST, port: env.PORT });
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
