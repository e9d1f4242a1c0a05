import { type DynamicModule, Logger, Module } from '@nestjs/common';
import { IdSource, RandomIds } from '@mcp-platform/shared-clock';
import { KeyValueFactory } from '@mcp-platform/shared-messaging';
import { accessTokenVerifierProvider } from './auth/access-token-verifier.provider';
import { EdgeAuthenticator } from './auth/edge-authenticator.service';
import { ProtectedResourceMetadataEndpoint } from './auth/protected-resource-metadata.endpoint';
import { ProtectedResources } from './auth/protected-resources';
import { TokenRevocations } from './auth/token-revocations.service';
import { BrokerEventsNatsController } from './broker-events.nats.controller';
import { BrokerEvents } from './broker-events.service';
import { CallRegistry } from './calls/call-registry.service';
import { StreamResumption } from './calls/stream-resumption.service';
import { generateRequestStateKey, parseRequestStateKey } from './config/request-state-keys';
import { McpEndpoint } from './edge/mcp-endpoint.service';
import { OpenConnections } from './edge/open-connections.registry';
import { LegacyEndpoint } from './legacy/legacy-endpoint.service';
import { MethodTable } from './methods/method-table';
import { ModernEndpoint } from './modern/modern-endpoint.service';
import { RequestStates } from './modern/request-state';
import { RoundTrips } from './modern/round-trips.service';
import { ResourceMethods } from './resources/resource-methods.service';
import { type ResolvedSessionBrokerOptions, resolveSessionBrokerOptions, SESSION_BROKER_OPTIONS, type SessionBrokerOptions } from './session-broker.options';
import { SessionStore } from './sessions/session.store';
import { SessionAdmission } from './sessions/session-admission.service';
import { SessionMethods } from './sessions/session-methods.service';
import { SkillMethods } from './skills/skill-methods.service';
import { VirtualServerAnnouncer } from './startup/virtual-server-announcer.service';
import { SessionStreams } from './streams/session-streams.registry';
import { ListenStreams } from './subscriptions/listen-streams.registry';
import { ResourceInterestReporter } from './subscriptions/resource-interest.reporter';
import { TaskMethods } from './tasks/task-methods.service';
import { TaskRateLimiter } from './tasks/task-rate-limiter';
import { TaskResultStreams } from './tasks/task-result-streams.registry';
import { ToolMethods } from './tools/tool-methods.service';
import { VirtualServerCache } from './virtual-servers/virtual-server.cache';

/**
 * The MCP Streamable HTTP edge, both protocol eras on one endpoint per virtual server. Transport-
 * agnostic: it needs `MessagingModule` (bus and KV) from its host, and `configureSessionBrokerHttp`
 * on the host's Fastify app to mount the endpoint.
 */
@Module({})
export class SessionBrokerModule {
  static register(options: SessionBrokerOptions): DynamicModule {
    const resolved = resolveSessionBrokerOptions(options);
    return {
      module: SessionBrokerModule,
      controllers: [BrokerEventsNatsController],
      providers: [
        { provide: SESSION_BROKER_OPTIONS, useValue: resolved },
        // Plain ids (modern calls, error ids); session ids and stream keys stay on node:crypto (S-91, S-90).
        { provide: IdSource, useClass: RandomIds },
        {
          provide: SessionStore,
          inject: [KeyValueFactory, SESSION_BROKER_OPTIONS],
          useFactory: (keyValue: KeyValueFactory, brokerOptions: ResolvedSessionBrokerOptions) =>
            SessionStore.open(keyValue, {
              ttlMs: brokerOptions.sessionTtlSeconds * 1_000,
              // The platform's cap, with room for replicas admitting at the same instant.
              maxMirrored: Math.ceil(brokerOptions.legacySessionLimits.total * 1.25),
            }),
        },
        SessionAdmission,
        VirtualServerCache,
        accessTokenVerifierProvider,
        ProtectedResources,
        TokenRevocations,
        EdgeAuthenticator,
        OpenConnections,
        ProtectedResourceMetadataEndpoint,
        CallRegistry,
        SessionStreams,
        StreamResumption,
        { provide: ListenStreams, useFactory: () => new ListenStreams(resolved.listenStreamsPerCaller) },
        ToolMethods,
        { provide: RequestStates, inject: [SESSION_BROKER_OPTIONS], useFactory: requestStates },
        RoundTrips,
        ResourceMethods,
        SkillMethods,
        TaskMethods,
        SessionMethods,
        MethodTable,
        TaskResultStreams,
        {
          provide: TaskRateLimiter,
          inject: [SESSION_BROKER_OPTIONS],
          useFactory: (brokerOptions: ResolvedSessionBrokerOptions) => new TaskRateLimiter({ operationsPerMinute: brokerOptions.taskOperationsPerMinute }),
        },
        LegacyEndpoint,
        ModernEndpoint,
        McpEndpoint,
        BrokerEvents,
        ResourceInterestReporter,
        VirtualServerAnnouncer,
      ],
      exports: [McpEndpoint, ProtectedResourceMetadataEndpoint, SESSION_BROKER_OPTIONS],
    };
  }
}

/** The configured request state keys, or a random one of this process when there are none (one replica only). */
function requestStates(options: ResolvedSessionBrokerOptions): RequestStates {
  if (options.requestStateKeys.length > 0) return new RequestStates(options.requestStateKeys);
  new Logger(RequestStates.name).warn(
    'REQUEST_STATE_KEYS is not set: multi round-trip request states are sealed with a random key of this process, which no other replica can open. ' +
      'Set it, the same on every broker replica, when several serve one MCP URL.',
  );
  return new RequestStates([parseRequestStateKey(generateRequestStateKey())]);
}
