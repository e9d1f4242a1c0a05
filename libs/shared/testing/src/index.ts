/**
 * Helpers for the e2e tier: boot the embedded or distributed platform, isolate a run (throwaway
 * database, bucket prefix), wait with deadlines, stop processes by pid, and talk raw HTTP to an MCP URL.
 */
export { getFreePort } from './network/free-port';
export { waitForHttpOk, waitUntil, type WaitOptions } from './network/wait-until';
export { ProcessTracker, type TrackedProcess } from './processes/process-tracker';
export { findRepoRoot } from './platform/repo-root';
export { testInfrastructure, uniqueRunId, type TestInfrastructure } from './platform/test-infrastructure';
export { createThrowawayDatabase, type ThrowawayDatabase } from '@mcp-platform/shared-persistence';
export { deleteBucketsWithPrefix } from './platform/jetstream-buckets';
export { bootEmbedded, type EmbeddedPlatform, type StandaloneHandle } from './platform/embedded-platform';
export {
  BUCKET_PREFIX_ENV,
  CLUSTER_MODULE,
  bootDistributed,
  findClusterModule,
  importClusterModule,
  type BootDistributedOptions,
  type ClusterHandle,
  type DistributedPlatform,
  type StartCluster,
} from './platform/distributed-platform';
export { keepAliveAgent, sendRaw, type RawRequest, type RawResponse } from './mcp/raw-http';
export { parseSse, sseMessages, type SseEvent } from './mcp/sse';
export {
  ErrorCodes,
  LEGACY_PROTOCOL_VERSIONS,
  META_KEYS,
  MODERN_PROTOCOL_VERSION,
  POST_HEADERS,
  deleteLegacySession,
  errorCode,
  firstResult,
  mcpUrl,
  modernHeaders,
  modernMeta,
  openLegacySession,
  responseMessage,
  type JsonRpcAnswer,
  type LegacySession,
} from './mcp/mcp-protocol';
export { SeededRandom } from './hostile/seeded-random';
export {
  HOSTILE_CATEGORIES,
  checkHostileAnswer,
  generateHostileCases,
  type Expectation,
  type HostileCase,
  type HostileCategory,
  type HostileTarget,
} from './hostile/hostile-requests';
