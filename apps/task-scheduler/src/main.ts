import 'reflect-metadata';
import { httpServerSettings, loadDotEnvFile } from '@mcp-platform/shared-config';
import { natsMessaging } from '@mcp-platform/shared-messaging';
import { exitOnStartFailure, runService } from '@mcp-platform/shared-observability';
import { AppModule } from './app.module';
import { loadTaskSchedulerEnv } from './config/env.schema';

async function main(): Promise<void> {
  // The working directory's .env, under what the environment already says.
  loadDotEnvFile();
  const env = loadTaskSchedulerEnv();
  const messaging = natsMessaging('task-scheduler', env);
  await runService({ module: AppModule.forRoot(env, messaging), messaging, host: env.HOST, port: env.PORT, ...httpServerSettings(env) });
}

void main().catch((error: unknown) => exitOnStartFailure(error));
