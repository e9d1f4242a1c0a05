/** Shared because every outbound call to a URL a tenant or client chose must pass one SSRF guard (HTTP tools, CIMD). */
export { SsrfRefusedError, checkOutboundUrl, findSsrfRefusal, guardedLookup, isHostExempt, isPublicAddress, type EgressPolicy, type Resolver, type SsrfRefusalReason } from './ssrf-guard';
export { createGuardedAgent, readLimitedBody, type GuardedAgentOptions, type LimitedBody } from './guarded-agent';
export { describeOutboundFailure } from './outbound-failure';
