/** The session broker's feature module and HTTP setup, for the embedded host (`apps/standalone`). */
export { SessionBrokerModule } from './session-broker.module';
export { configureSessionBrokerHttp, MCP_ROUTE } from './session-broker.http';
export { defaultAllowLists, type LegacySessionLimits, type SessionBrokerOptions } from './session-broker.options';
export { mcpEdgeEnv } from './config/env.schema';
export { legacyCallId } from './calls/call-id';
export { generateRequestStateKey } from './config/request-state-keys';
