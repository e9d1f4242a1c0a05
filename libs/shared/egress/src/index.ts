/** Shared because every outbound call to a URL a tenant or client chose must pass one SSRF guard (HTTP tools, CIMD). */
export { createGuardedAgent, type GuardedAgentOptions, type LimitedBody, readLimitedBody } from './guarded-agent';
export { describeOutboundFailure } from './outbound-failure';
export {
  checkOutboundUrl,
  type EgressPolicy,
  findSsrfRefusal,
  guardedLookup,
  isHostExempt,
  isPublicAddress,
  type Resolver,
  type SsrfRefusalReason,
  SsrfRefusedError,
} from './ssrf-guard';
