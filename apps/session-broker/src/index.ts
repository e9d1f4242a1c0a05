/** The session broker's feature module and HTTP setup, for the embedded host (`apps/standalone`). */
export { legacyCallId } from './calls/call-id';
export { mcpEdgeEnv } from './config/env.schema';
export { generateRequestStateKey } from './config/request-state-keys';
export { configureSessionBrokerHttp, MCP_ROUTE } from './session-broker.http';
export { SessionBrokerModule } from './session-broker.module';
export { defaultAllowLists, type LegacySessionLimits, type SessionBrokerOptions } from './session-broker.options';
