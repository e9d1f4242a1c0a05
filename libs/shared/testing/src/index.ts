/**
 * Helpers for the integration and e2e tiers: boot one service on both setups or the whole platform
 * (embedded or distributed), isolate a run (throwaway database, bucket and subject prefixes), wait with
 * deadlines, stop processes by pid, talk raw HTTP to an MCP URL, and start upstream MCP servers of
 * both eras (fixtures with one shared catalog, and the npm reference servers) for federation tests.
 */
export { tarArchive, tarGzArchive, zipArchive } from './archives/archives';
export { CHROMIUM_ARGS, DEFAULT_CHROMIUM_PATH, launchChromium } from './browser/chromium';
export {
  bloatedInitialize,
  checkHostileAnswer,
  CLIENT_INFO_FIELD_LIMIT,
  type Expectation,
  generateHostileCases,
  HOSTILE_CATEGORIES,
  type HostileCase,
  type HostileCategory,
  type HostileTarget,
  INITIALIZE_PARAMS_LIMIT_BYTES,
} from './hostile/hostile-requests';
export { SeededRandom } from './hostile/seeded-random';
export {
  deleteLegacySession,
  errorCode,
  ErrorCodes,
  firstResult,
  type JsonRpcAnswer,
  LEGACY_PROTOCOL_VERSIONS,
  type LegacySession,
  mcpUrl,
  META_KEYS,
  MODERN_PROTOCOL_VERSION,
  modernHeaders,
  modernMeta,
  openLegacySession,
  POST_HEADERS,
  responseMessage,
  toolResultText,
} from './mcp/mcp-protocol';
export { keepAliveAgent, type RawRequest, type RawResponse, sendRaw } from './mcp/raw-http';
export { parseSse, type SseEvent, sseMessages } from './mcp/sse';
export { getFreePort } from './network/free-port';
export { type RoundRobinProxy, startRoundRobinProxy } from './network/round-robin-proxy';
export { waitForHttpOk, type WaitOptions, waitUntil } from './network/wait-until';
export { type AuthChallenge, type BearerChallenge, bearerChallenge, type ChallengeSource, parseAuthChallenges } from './oauth/bearer-challenge';
export { type ClientMetadataHost, type ClientMetadataSource, type ServedDocumentOptions, startClientMetadataHost } from './oauth/client-metadata-host';
export { CookieJar, type StoredCookie } from './oauth/cookie-jar';
export { decodeEntities, fieldValue, findForm, type FormField, type HtmlForm, parseForms } from './oauth/html-forms';
export {
  type AccessTokenClaims,
  asUnsecuredJwt,
  type DecodedJwt,
  decodeJwt,
  generateTestSigningKey,
  mintAccessToken,
  type MintAccessTokenOptions,
  type PublicRsaJwk,
  signRs256,
  type TestSigningKey,
  withFlippedSignatureByte,
} from './oauth/jwt-forgery';
export {
  type AuthorizeAs,
  type BrowserFetch,
  type BrowserPage,
  type BrowserResponse,
  type ConsentDecision,
  csrfOf,
  exitUrlOf,
  type Navigation,
  OAuthBrowser,
  OAuthBrowserError,
  type OAuthBrowserOptions,
  pageOf,
  type RequestInitLike,
  type SubmitOptions,
} from './oauth/oauth-browser';
export {
  type AuthorizationOutcome,
  type AuthorizationRequestOptions,
  type AuthorizationServerMetadata,
  authorizationServerMetadataUrl,
  clientSecretBasic,
  type ClientSecretCredentials,
  DEFAULT_REDIRECT_URI,
  discoverAuthorizationServer,
  type FormEndpointAnswer,
  OAuthTestClient,
  obtainToken,
  type ObtainTokenOptions,
  type PkceMode,
  postForm,
  type PostFormOptions,
  type PreparedAuthorization,
  protectedResourceMetadataUrl,
  type RegisteredClient,
  type TestUser,
  type TokenEndpointAnswer,
  type TokenSet,
} from './oauth/oauth-test-client';
export { createPkcePair, type PkcePair, randomState, s256Challenge } from './oauth/pkce';
export {
  AuthorizationCallbackError,
  clientMetadataDocument,
  type ClientRegistration,
  LegacySdkOAuthProvider,
  ModernSdkOAuthProvider,
  type TestOAuthProviderOptions,
} from './oauth/sdk-oauth-providers';
export {
  bootDistributed,
  type BootDistributedOptions,
  BUCKET_PREFIX_ENV,
  CLUSTER_MODULE,
  type ClusterHandle,
  type DistributedPlatform,
  findClusterModule,
  importClusterModule,
  type ProcessExit,
  type StartCluster,
  SUBJECT_PREFIX_ENV,
} from './platform/distributed-platform';
export { bootEmbedded, type EmbeddedPlatform, type PlatformAuth, type PlatformCredentials, type StandaloneHandle } from './platform/embedded-platform';
export { deleteBucketsWithPrefix } from './platform/jetstream-buckets';
export { findRepoRoot } from './platform/repo-root';
export { type TestInfrastructure, testInfrastructure, uniqueRunId } from './platform/test-infrastructure';
export { ownRssAfterGc, processRssBytes } from './processes/process-memory';
export { ProcessTracker, type TrackedProcess } from './processes/process-tracker';
export { bootService, type BootServiceOptions } from './services/boot-service';
export { errorOf } from './services/rpc-errors';
export {
  isolatedNatsMessaging,
  type PreparedDatabase,
  type ServiceSetup,
  type ServiceSetupName,
  serviceSetups,
  type ServiceSetupsOptions,
} from './services/service-setups';
export { LEGACY_TASKS_UPSTREAM_TOOLS, type LegacyTasksUpstream, startLegacyTasksUpstream } from './upstreams/legacy-tasks-upstream';
export { type LegacyUpstream, type LegacyUpstreamOptions, startLegacyUpstream } from './upstreams/legacy-upstream';
export { type ModernUpstream, type ModernUpstreamOptions, startModernUpstream } from './upstreams/modern-upstream';
export {
  type EverythingHttp,
  type EverythingHttpTransport,
  everythingServerCommand,
  filesystemServerCommand,
  memoryServerCommand,
  NPM_UPSTREAM_PACKAGES,
  npmUpstreamBin,
  startEverythingHttp,
} from './upstreams/npm-upstreams';
export { legacyStdioUpstreamCommand, STDIO_UPSTREAM_READY_LINE, type StdioServerCommand, stdioUpstreamEntry } from './upstreams/stdio-upstream-command';
export { type FixtureTask, startTasksUpstream, TASKS_UPSTREAM_TOOLS, type TasksUpstream } from './upstreams/tasks-upstream';
export {
  CATALOG_RESOURCES,
  CATALOG_TOOL_NAMES,
  type CatalogToolName,
  GREET_NAMES,
  INITIAL_TOOL_DESCRIPTIONS,
  NOTE_TEMPLATE,
  type SlowRun,
  UPSTREAM_SERVER_INFO,
} from './upstreams/upstream-catalog';
export { type UpstreamRequest, type UpstreamTransportKind } from './upstreams/upstream-http';
export { createThrowawayDatabase, type ThrowawayDatabase } from '@mcp-platform/shared-persistence';
