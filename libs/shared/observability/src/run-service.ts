import type { DynamicModule, Type } from '@nestjs/common';
import { DiscoveryService, ModulesContainer, NestApplication, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { type MessagingOptions, microserviceOptions, stopTakingRequests } from '@mcp-platform/shared-messaging';
import { isDrainable, type OnDrain } from './drain';
import { PlatformLogger } from './platform-logger';

/**
 * How the HTTP server treats slow clients. The timeouts bound receiving a request (its headers, then
 * the whole of it), never sending the answer, so SSE streams live as long as they must.
 */
export interface HttpTimeouts {
  /** The request's headers must have arrived this long after the connection (or the previous request). */
  headersTimeoutMs: number;
  /** The whole request, body included, must have arrived this long after it started (at least `headersTimeoutMs`). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection closes after this long (above a load balancer's own idle timeout, so it closes first). */
  keepAliveTimeoutMs: number;
}

/**
 * Slow-loris connections (headers trickled a byte at a time, a body that never ends) are closed after
 * seconds, not held: a client on a slow link still sends a few megabytes in 30 s. Idle keep-alive
 * connections stay a little over the 60 s most load balancers keep theirs.
 */
export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 65_000 };

/** How long work in flight gets to finish at shutdown, below Kubernetes' default `terminationGracePeriodSeconds` of 30. */
export const DEFAULT_SHUTDOWN_GRACE_MS = 10_000;

/**
 * How often Node looks for connections past their header or request timeout (its default, 30 s, would
 * let a slow-loris connection live up to 30 s past its timeout); a pass costs a walk over the open
 * connections.
 */
const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** The signals that stop a service: an orchestrator's SIGTERM, a terminal's Ctrl+C, or the terminal closing. */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

export interface RunServiceOptions {
  /** The root module (it imports LoggingModule, MessagingModule and the app's feature modules). */
  module: Type | DynamicModule;
  messaging: MessagingOptions;
  host: string;
  port: number;
  /** HTTP-level setup that must happen before `init` (content-type parsers, hooks). */
  configure?: (app: NestFastifyApplication) => void | Promise<void>;
  /** Fastify options, e.g. `bodyLimit`, `trustProxy`. */
  fastify?: ConstructorParameters<typeof FastifyAdapter>[0];
  /** The HTTP server's timeouts (default {@link DEFAULT_HTTP_TIMEOUTS}). */
  httpTimeouts?: Partial<HttpTimeouts>;
  /** How long work in flight gets at shutdown, in milliseconds (default {@link DEFAULT_SHUTDOWN_GRACE_MS}). */
  shutdownGraceMs?: number;
  /** The apps this process runs, named in its one ready line (the embedded host runs five). */
  apps?: readonly string[];
}

/**
 * Boots one app the same way everywhere (STYLE.md §17): Fastify, pino, the microservice on the
 * configured bus, HTTP listening last. Resolves once the app serves.
 *
 * Stopping (SIGTERM, SIGINT, SIGHUP, or `app.close()`) drains first: every provider and controller that
 * implements {@link OnDrain} is told at once, with a deadline `shutdownGraceMs` away, while the HTTP
 * server and the bus still work (readiness turns unhealthy, the MCP edge refuses new work, calls in
 * flight finish or are ended so their clients know); on NATS the app's request handlers stop taking
 * requests, which go to its other replicas. Then Nest's own shutdown runs, and a signal ends the
 * process as it would have without us.
 */
export async function runService(options: RunServiceOptions): Promise<NestFastifyApplication> {
  const timeouts = { ...DEFAULT_HTTP_TIMEOUTS, ...options.httpTimeouts };
  if (timeouts.headersTimeoutMs > timeouts.requestTimeoutMs) {
    throw new Error(`the header timeout (${timeouts.headersTimeoutMs} ms) must not exceed the request timeout (${timeouts.requestTimeoutMs} ms)`);
  }
  const adapter = new FastifyAdapter({
    // Long-lived SSE streams must not hold a stopping process hostage once the drain is over.
    forceCloseConnections: true,
    // Node's timeouts count while a request arrives and stop once it has; an answer may stream for hours.
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    http: { headersTimeout: timeouts.headersTimeoutMs, connectionsCheckingInterval: TIMEOUT_CHECK_INTERVAL_MS },
    ...options.fastify,
  });
  const app = await NestFactory.create<NestFastifyApplication>(options.module, adapter, { bufferLogs: true });
  const logger = app.get(PlatformLogger);
  app.useLogger(logger);
  await options.configure?.(app);
  const microservice = microserviceOptions(options.messaging);
  app.connectMicroservice(microservice, { inheritAppConfig: true });
  await app.init();
  await app.startAllMicroservices();

  const graceMs = options.shutdownGraceMs ?? DEFAULT_SHUTDOWN_GRACE_MS;
  // Nest's own close, from its class: the application is a proxy that looks `close` up at each call, so a
  // reference taken from it would call the drain below again.
  const closeNest = (): Promise<void> => NestApplication.prototype.close.call(app);
  let closing: Promise<void> | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    void app.close().finally(() => process.kill(process.pid, signal));
  };
  const listeners = STOP_SIGNALS.map((signal) => [signal, () => onSignal(signal)] as const);
  const drainThenClose = (): Promise<void> => {
    closing ??= (async () => {
      // A second signal while draining takes the default way out: the process ends at once.
      for (const [signal, listener] of listeners) process.removeListener(signal, listener);
      try {
        await drain(app, microservice, Date.now() + graceMs);
      } catch (error) {
        logger.error(`the drain failed; closing anyway: ${(error as Error)?.stack ?? String(error)}`);
      }
      await closeNest();
    })();
    return closing;
  };
  // Defined, not assigned: Nest's application is a proxy whose `set` ignores assignments.
  Object.defineProperty(app, 'close', { value: drainThenClose, configurable: true, writable: true });
  for (const [signal, listener] of listeners) process.once(signal, listener);
  await app.listen(options.port, options.host);
  // The one line a start prints at info besides what the apps did (migrations, keys): where it serves.
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  logger.log(
    `ready on http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}${options.apps?.length ? ` (${options.apps.join(', ')})` : ''}`,
  );
  return app;
}

/** Tells every {@link OnDrain} participant, at once, and waits for them (each keeps to the deadline itself). */
async function drain(app: NestFastifyApplication, microservice: ReturnType<typeof microserviceOptions>, deadline: number): Promise<void> {
  const discovery = new DiscoveryService(app.get(ModulesContainer));
  const participants = new Set<OnDrain>();
  for (const wrapper of [...discovery.getProviders(), ...discovery.getControllers()]) {
    const instance: unknown = wrapper.instance;
    if (isDrainable(instance)) participants.add(instance);
  }
  await Promise.all([stopTakingRequests(microservice), ...[...participants].map((participant) => participant.onDrain(deadline))]);
}
