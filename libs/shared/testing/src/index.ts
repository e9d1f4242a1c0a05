/**
 * Helpers for the integration and e2e tiers: boot one service on both setups or the whole platform
 * (embedded or distributed), isolate a run (throwaway database, bucket and subject prefixes), wait with
 * deadlines, stop processes by pid, and talk raw HTTP to an MCP URL.
 */
export { getFreePort } from './network/free-port';
export { waitForHttpOk, waitUntil, type WaitOptions } from './network/wait-until';
export { startRoundRobinProxy, type RoundRobinProxy } from './network/round-robin-proxy';
export { ProcessTracker, type TrackedProcess } from './processes/process-tracker';
export { findRepoRoot } from './platform/repo-root';
export { testInfrastructure, uniqueRunId, type TestInfrastructure } from './platform/test-infrastructure';
export { createThrowawayDatabase, type ThrowawayDatabase } from '@mcp-platform/shared-persistence';
export { deleteBucketsWithPrefix } from './platform/jetstream-buckets';
export {
  isolatedNatsMessaging,
  serviceSetups,
  type PreparedDatabase,
  type ServiceSetup,
  type ServiceSetupName,
  type ServiceSetupsOptions,
} from './services/service-setups';
export { bootService, type BootServiceOptions } from './services/boot-service';
export { errorOf } from './services/rpc-errors';
export { bootEmbedded, type EmbeddedPlatform, type PlatformAuth, type PlatformCredentials, type StandaloneHandle } from './platform/embedded-platform';
export {
  BUCKET_PREFIX_ENV,
  CLUSTER_MODULE,
  SUBJECT_PREFIX_ENV,
  bootDistributed,
  findClusterModule,
  importClusterModule,
  type BootDistributedOptions,
  type ClusterHandle,
  type DistributedPlatform,
  type ProcessExit,
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
  toolResultText,
  type JsonRpcAnswer,
  type LegacySession,
} from './mcp/mcp-protocol';
export { SeededRandom } from './hostile/seeded-random';
export { ownRssAfterGc, processRssBytes } from './processes/process-memory';
export { CHROMIUM_ARGS, DEFAULT_CHROMIUM_PATH, launchChromium } from './browser/chromium';
export {
  CLIENT_INFO_FIELD_LIMIT,
  HOSTILE_CATEGORIES,
  INITIALIZE_PARAMS_LIMIT_BYTES,
  bloatedInitialize,
  checkHostileAnswer,
  generateHostileCases,
  type Expectation,
  type HostileCase,
  type HostileCategory,
  type HostileTarget,
} from './hostile/hostile-requests';
export { CookieJar, type StoredCookie } from './oauth/cookie-jar';
export { decodeEntities, fieldValue, findForm, parseForms, type FormField, type HtmlForm } from './oauth/html-forms';
export { bearerChallenge, parseAuthChallenges, type AuthChallenge, type BearerChallenge, type ChallengeSource } from './oauth/bearer-challenge';
export { createPkcePair, randomState, s256Challenge, type PkcePair } from './oauth/pkce';
export {
  asUnsecuredJwt,
  decodeJwt,
  generateTestSigningKey,
  mintAccessToken,
  signRs256,
  withFlippedSignatureByte,
  type AccessTokenClaims,
  type DecodedJwt,
  type MintAccessTokenOptions,
  type PublicRsaJwk,
  type TestSigningKey,
} from './oauth/jwt-forgery';
export {
  OAuthBrowser,
  OAuthBrowserError,
  csrfOf,
  exitUrlOf,
  pageOf,
  type AuthorizeAs,
  type BrowserFetch,
  type BrowserPage,
  type BrowserResponse,
  type ConsentDecision,
  type Navigation,
  type OAuthBrowserOptions,
  type RequestInitLike,
  type SubmitOptions,
} from './oauth/oauth-browser';
export {
  DEFAULT_REDIRECT_URI,
  OAuthTestClient,
  authorizationServerMetadataUrl,
  clientSecretBasic,
  discoverAuthorizationServer,
  obtainToken,
  postForm,
  protectedResourceMetadataUrl,
  type AuthorizationOutcome,
  type AuthorizationRequestOptions,
  type AuthorizationServerMetadata,
  type ClientSecretCredentials,
  type FormEndpointAnswer,
  type ObtainTokenOptions,
  type PkceMode,
  type PostFormOptions,
  type PreparedAuthorization,
  type RegisteredClient,
  type TestUser,
  type TokenEndpointAnswer,
  type TokenSet,
} from './oauth/oauth-test-client';
export {
  AuthorizationCallbackError,
  LegacySdkOAuthProvider,
  ModernSdkOAuthProvider,
  clientMetadataDocument,
  type ClientRegistration,
  type TestOAuthProviderOptions,
} from './oauth/sdk-oauth-providers';
export { startClientMetadataHost, type ClientMetadataHost, type ClientMetadataSource, type ServedDocumentOptions } from './oauth/client-metadata-host';
