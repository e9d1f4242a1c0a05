import type { DynamicModule, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { microserviceOptions, type MessagingOptions } from '@mcp-platform/shared-messaging';
import { PlatformLogger } from './platform-logger';

export interface RunServiceOptions {
  /** The root module (it imports LoggingModule, MessagingModule and the app's feature modules). */
  module: Type | DynamicModule;
  messaging: MessagingOptions;
  host: string;
  port: number;
  /** HTTP-level setup that must happen before `init` (content-type parsers, hooks). */
  configure?: (app: NestFastifyApplication) => void | Promise<void>;
  /** Fastify options, e.g. `bodyLimit`. */
  fastify?: ConstructorParameters<typeof FastifyAdapter>[0];
  /** The apps this process runs, named in its one ready line (the embedded host runs five). */
  apps?: readonly string[];
}

/**
 * Boots one app the same way everywhere (STYLE.md §17): Fastify, pino, the microservice on the
 * configured bus, shutdown hooks, HTTP listening last. Resolves once the app serves.
 */
export async function runService(options: RunServiceOptions): Promise<NestFastifyApplication> {
  // Long-lived SSE streams must not hold a stopping process hostage: clients reconnect elsewhere.
  const adapter = new FastifyAdapter({ forceCloseConnections: true, ...options.fastify });
  const app = await NestFactory.create<NestFastifyApplication>(options.module, adapter, { bufferLogs: true });
  const logger = app.get(PlatformLogger);
  app.useLogger(logger);
  app.enableShutdownHooks();
  await options.configure?.(app);
  app.connectMicroservice(microserviceOptions(options.messaging), { inheritAppConfig: true });
  await app.init();
  await app.startAllMicroservices();
  await app.listen(options.port, options.host);
  // The one line a start prints at info besides what the apps did (migrations, keys): where it serves.
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  logger.log(`ready on http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}${options.apps?.length ? ` (${options.apps.join(', ')})` : ''}`);
  return app;
}
