import { type DynamicModule, Module, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { MessagingModule, type MessagingOptions, microserviceOptions } from '@mcp-platform/shared-messaging';

export interface BootServiceOptions {
  /** Controllers beside the service, e.g. fakes of the services it calls. */
  controllers?: Array<Type<unknown>>;
  /** Runs before the microservice connects and the app initialises (HTTP routes, OpenAPI). */
  configure?: (app: NestFastifyApplication) => void;
}

/**
 * A service's module (an app's `register(...)`) on `messaging`, as its `main.ts` runs it: a Fastify app
 * whose microservice serves the module's RPCs and events on the same bus. Not listening; call `listen`
 * for HTTP.
 */
export async function bootService(
  messaging: MessagingOptions,
  serviceModule: DynamicModule | Type<unknown>,
  options: BootServiceOptions = {},
): Promise<NestFastifyApplication> {
  @Module({ imports: [MessagingModule.forRoot(messaging), serviceModule], controllers: options.controllers ?? [] })
  class ServiceTestModule {}
  // Rejects instead of aborting the process, so a missing NATS or PostgreSQL fails the suite with its cause.
  const app = await NestFactory.create<NestFastifyApplication>(ServiceTestModule, new FastifyAdapter(), { logger: ['error'], abortOnError: false });
  try {
    options.configure?.(app);
    app.connectMicroservice(microserviceOptions(messaging), { inheritAppConfig: true });
    await app.init();
    await app.startAllMicroservices();
  } catch (error) {
    // A half-booted app still holds its bus connection and database pool, which would keep the run alive.
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}
