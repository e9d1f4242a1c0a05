import type {
  OAuthClientMetadata as ModernClientMetadata,
  OAuthClientProvider as ModernOAuthClientProvider,
  OAuthDiscoveryState as ModernDiscoveryState,
  StoredOAuthClientInformation as ModernClientInformation,
  StoredOAuthTokens as ModernTokens,
} from '@modelcontextprotocol/client';
import type { OAuthClientProvider as LegacyOAuthClientProvider, OAuthDiscoveryState as LegacyDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import type {
  OAuthClientInformationMixed as LegacyClientInformation,
  OAuthClientMetadata as LegacyClientMetadata,
  OAuthTokens as LegacyTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { type ConsentDecision, OAuthBrowser } from './oauth-browser';
import { DEFAULT_REDIRECT_URI, type TestUser } from './oauth-test-client';
import { randomState } from './pkce';

/** How the SDK client identifies itself to the authorization server. */
export type ClientRegistration =
  /** Dynamic Client Registration (RFC 7591) of a native client with a loopback redirect URI. */
  | { kind: 'dcr'; redirectUri?: string; clientName?: string }
  /**
   * A Client ID Metadata Document: the SDK uses `clientMetadataUrl` as the client_id when the AS
   * advertises `client_id_metadata_document_supported` (the SDK requires an https URL with a path).
   * `redirectUri` must be one the document lists.
   */
  | { kind: 'cimd'; clientMetadataUrl: string; redirectUri: string; clientName?: string };

/** Options shared by both providers. */
export interface TestOAuthProviderOptions {
  /** Who signs in on the authorization server's page. */
  user: TestUser;
  registration: ClientRegistration;
  /** The user's answer on the consent page (default approve). */
  consent?: ConsentDecision;
  /** The browser to play (its cookies are the user's sign-in session); a fresh one by default. */
  browser?: OAuthBrowser;
  /**
   * Whether refresh tokens are kept (default true). A client that keeps none must re-authorize when
   * its access token is refused, which is how the legacy SDK reaches a wider scope (see the legacy class).
   */
  keepRefreshTokens?: boolean;
}

/** A refused or odd authorization callback (the redirect carried `error`, or the state did not match). */
export class AuthorizationCallbackError extends Error {
  constructor(
    message: string,
    readonly callback: URL,
  ) {
    super(`${message}: ${callback.href}`);
    this.name = 'AuthorizationCallbackError';
  }
}

interface TokensLike {
  access_token: string;
  refresh_token?: string;
  scope?: string;
}

/**
 * The state both SDK generations keep in an `OAuthClientProvider`, in memory: client information,
 * tokens, the PKCE verifier, discovery state. `redirectToAuthorization` runs the browser at once
 * (sign in, consent) and keeps the callback, which the test hands to the transport's `finishAuth`,
 * as a real client's redirect listener would. Everything OAuth (discovery from the 401, registration,
 * PKCE, refresh, step-up) is the SDK's own logic; this class only stores and plays the user.
 */
abstract class InMemoryOAuthProvider<Tokens extends TokensLike, ClientInformation extends { client_id: string }, Discovery> {
  /** Every authorization URL the SDK asked the browser to open, in order. */
  readonly authorizationUrls: URL[] = [];
  /** Every callback the browser ended on (the client's redirect URI with `code`/`error`, `state`, `iss`), in order. */
  readonly callbacks: URL[] = [];
  /** Every token set the SDK saved, in order (the last one is current). */
  readonly savedTokens: Tokens[] = [];
  /** The browser playing the user. */
  readonly browser: OAuthBrowser;
  /** The user's next answer on the consent page. */
  consent: ConsentDecision;
  protected storedTokens: Tokens | undefined;
  protected storedClient: ClientInformation | undefined;
  protected storedDiscovery: Discovery | undefined;
  private verifier: string | undefined;
  private pendingState: string | undefined;
  private callback: URL | undefined;
  private readonly keepRefreshTokens: boolean;

  constructor(protected readonly options: TestOAuthProviderOptions) {
    this.browser = options.browser ?? new OAuthBrowser();
    this.consent = options.consent ?? 'approve';
    this.keepRefreshTokens = options.keepRefreshTokens ?? true;
  }

  get redirectUrl(): string {
    return this.options.registration.redirectUri ?? DEFAULT_REDIRECT_URI;
  }

  get clientMetadataUrl(): string | undefined {
    return this.options.registration.kind === 'cimd' ? this.options.registration.clientMetadataUrl : undefined;
  }

  /** The metadata sent by DCR (and, for CIMD, what the hosted document should say). */
  protected metadataDocument(): Record<string, unknown> & { redirect_uris: string[] } {
    return {
      client_name: this.options.registration.clientName ?? `e2e ${this.options.registration.kind} client`,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      // spec S-168: a loopback redirect makes it a native client.
      application_type: 'native',
    };
  }

  state(): string {
    this.pendingState = randomState();
    return this.pendingState;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.verifier = codeVerifier;
  }

  codeVerifier(): string {
    if (this.verifier === undefined) throw new Error('no PKCE code verifier was saved');
    return this.verifier;
  }

  /** Plays the user in the browser right away and keeps the callback for `finishAuth`. */
  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    this.authorizationUrls.push(new URL(authorizationUrl.href));
    this.callback = await this.browser.authorize(authorizationUrl, { ...this.options.user, consent: this.consent });
    this.callbacks.push(this.callback);
  }

  /** True when the SDK started an authorization whose callback has not been taken yet. */
  get hasPendingCallback(): boolean {
    return this.callback !== undefined;
  }

  /**
   * The last callback's parameters (for the modern transport's `finishAuth(URLSearchParams)`, which
   * checks RFC 9207 `iss` itself), after checking `state` as a client must. Throws when the callback
   * carries an `error`.
   */
  takeCallbackParams(): URLSearchParams {
    const callback = this.callback;
    this.callback = undefined;
    if (callback === undefined) throw new Error('the SDK never redirected to the authorization endpoint');
    const params = callback.searchParams;
    if (params.get('state') !== this.pendingState) throw new AuthorizationCallbackError('the callback state is not the one sent', callback);
    if (params.get('error') !== null) throw new AuthorizationCallbackError(`authorization refused (${params.get('error')})`, callback);
    if (params.get('code') === null) throw new AuthorizationCallbackError('the callback carries no code', callback);
    return params;
  }

  /**
   * The URL the browser came back to (the redirect URI with `code`, `state` and `iss`), as an
   * application's redirect listener receives it, after checking `state`: what the README's modern-client
   * snippet hands to `finishAuth` (its `myOAuthProvider.waitForCallback()`).
   */
  async waitForCallback(): Promise<string> {
    const callback = this.callback;
    this.takeCallbackParams();
    return callback?.href ?? '';
  }

  /** The last callback's `code` (for the legacy transport's `finishAuth(code)`). */
  takeAuthorizationCode(): string {
    return this.takeCallbackParams().get('code') as string;
  }

  /** The current tokens (what the transport sends as the bearer token). */
  get currentTokens(): Tokens | undefined {
    return this.storedTokens;
  }

  /** The client the SDK registered (DCR) or identified itself as (CIMD). */
  get registeredClient(): ClientInformation | undefined {
    return this.storedClient;
  }

  /**
   * Makes the stored access token unusable while keeping the refresh token, as if it had expired
   * on the client's side: the next request is refused (401) and the SDK must refresh by itself.
   */
  invalidateAccessToken(): void {
    if (this.storedTokens === undefined) throw new Error('no tokens to invalidate');
    this.storedTokens = { ...this.storedTokens, access_token: `${this.storedTokens.access_token.slice(0, -8)}expired0` };
  }

  protected keep(tokens: Tokens): void {
    const kept = this.keepRefreshTokens ? tokens : withoutRefreshToken(tokens);
    this.storedTokens = kept;
    this.savedTokens.push(kept);
  }

  protected forget(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'all' || scope === 'client') this.storedClient = undefined;
    if (scope === 'all' || scope === 'tokens') this.storedTokens = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = undefined;
    if (scope === 'all' || scope === 'discovery') this.storedDiscovery = undefined;
  }
}

function withoutRefreshToken<Tokens extends TokensLike>(tokens: Tokens): Tokens {
  const copy = { ...tokens };
  delete copy.refresh_token;
  return copy;
}

/**
 * `OAuthClientProvider` for the legacy SDK (`@modelcontextprotocol/sdk` 1.x), in memory.
 *
 * Known SDK 1.x behaviour the tests work with: on a 403 `insufficient_scope`, its `auth()` refreshes
 * when a refresh token is stored instead of asking for the wider scope (a refresh cannot widen a
 * grant, RFC 6749 §6), so the retry fails again with "Server returned 403 after trying upscoping".
 * A client that keeps no refresh token (`keepRefreshTokens: false`) steps up through a new
 * authorization request carrying the challenged scope. SDK 2.x fixed this (`forceReauthorization`).
 */
export class LegacySdkOAuthProvider
  extends InMemoryOAuthProvider<LegacyTokens, LegacyClientInformation, LegacyDiscoveryState>
  implements LegacyOAuthClientProvider
{
  get clientMetadata(): LegacyClientMetadata {
    // `application_type` is not in the 1.x type, but the SDK posts the object as given.
    const metadata: LegacyClientMetadata = this.metadataDocument();
    return metadata;
  }

  clientInformation(): LegacyClientInformation | undefined {
    return this.storedClient;
  }

  saveClientInformation(clientInformation: LegacyClientInformation): void {
    this.storedClient = clientInformation;
  }

  tokens(): LegacyTokens | undefined {
    return this.storedTokens;
  }

  saveTokens(tokens: LegacyTokens): void {
    this.keep(tokens);
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    this.forget(scope);
  }

  saveDiscoveryState(state: LegacyDiscoveryState): void {
    this.storedDiscovery = state;
  }

  discoveryState(): LegacyDiscoveryState | undefined {
    return this.storedDiscovery;
  }
}

/**
 * `OAuthClientProvider` for the modern client (`@modelcontextprotocol/client` 2.x), in memory. It
 * keeps the discovery state, which 2.x requires on the callback leg to bind the code to the
 * authorization server that issued it (SEP-2352).
 */
export class ModernSdkOAuthProvider
  extends InMemoryOAuthProvider<ModernTokens, ModernClientInformation, ModernDiscoveryState>
  implements ModernOAuthClientProvider
{
  get clientMetadata(): ModernClientMetadata {
    const metadata: ModernClientMetadata = this.metadataDocument();
    return metadata;
  }

  clientInformation(): ModernClientInformation | undefined {
    return this.storedClient;
  }

  saveClientInformation(clientInformation: ModernClientInformation): void {
    this.storedClient = clientInformation;
  }

  tokens(): ModernTokens | undefined {
    return this.storedTokens;
  }

  saveTokens(tokens: ModernTokens): void {
    this.keep(tokens);
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    this.forget(scope);
  }

  saveDiscoveryState(state: ModernDiscoveryState): void {
    this.storedDiscovery = state;
  }

  discoveryState(): ModernDiscoveryState | undefined {
    return this.storedDiscovery;
  }
}

/**
 * The Client ID Metadata Document a CIMD test client publishes (S-163: `client_id` equals its URL,
 * `client_name` and `redirect_uris` present), matching what the providers send.
 */
export function clientMetadataDocument(clientId: string, redirectUri: string, clientName = 'e2e cimd client'): Record<string, unknown> {
  return {
    client_id: clientId,
    client_name: clientName,
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    application_type: 'native',
  };
}
