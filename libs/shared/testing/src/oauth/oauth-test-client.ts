import { type ConsentDecision, OAuthBrowser } from './oauth-browser';
import { createPkcePair, randomState } from './pkce';

/** The fields of RFC 8414 authorization server metadata the tests use (the rest kept as sent). */
export interface AuthorizationServerMetadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint?: string;
  jwks_uri?: string;
  revocation_endpoint?: string;
  introspection_endpoint?: string;
  code_challenge_methods_supported?: string[];
  scopes_supported?: string[];
  client_id_metadata_document_supported?: boolean;
  authorization_response_iss_parameter_supported?: boolean;
  [field: string]: unknown;
}

/** A registered client, as the registration endpoint answered (RFC 7591 §3.2.1). */
export interface RegisteredClient {
  client_id: string;
  client_secret?: string;
  redirect_uris: string[];
  [field: string]: unknown;
}

/** A successful token response (RFC 6749 §5.1). */
export interface TokenSet {
  access_token: string;
  token_type: string;
  expires_in?: number;
  refresh_token?: string;
  scope?: string;
  [field: string]: unknown;
}

/** The answer of an endpoint that takes a form (token, revocation, introspection): status, headers, JSON body. */
export interface FormEndpointAnswer {
  status: number;
  headers: Headers;
  /** The JSON object answered; `{}` for an empty or non-JSON body (revocation answers 200 with none). */
  body: Record<string, unknown>;
}

/** Any token endpoint answer: the status and the JSON body (success or RFC 6749 §5.2 error). */
export interface TokenEndpointAnswer extends FormEndpointAnswer {
  /** The token set when the answer is a success. */
  tokens?: TokenSet;
}

/** A confidential client's credentials, sent as HTTP Basic authentication (`client_secret_basic`). */
export interface ClientSecretCredentials {
  id: string;
  secret: string;
}

/** Options of `postForm`. */
export interface PostFormOptions {
  /** Authenticate as this client with `client_secret_basic` (RFC 6749 §2.3.1). */
  clientSecretBasic?: ClientSecretCredentials;
  /** The fetch to use (global `fetch` by default; injectable for unit tests). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
}

/** A user who signs in through the browser. */
export interface TestUser {
  username: string;
  password: string;
}

/** The PKCE variant an authorization request uses; `none` and `plain` exist to test refusals. */
export type PkceMode = 'S256' | 'plain' | 'none';

/** Parameters of one authorization request. */
export interface AuthorizationRequestOptions {
  /** The RFC 8707 resource indicator (the MCP URL). */
  resource?: string;
  scope?: string;
  pkce?: PkceMode;
  /** Defaults to the client's first registered redirect URI. */
  redirectUri?: string;
  state?: string;
  /** Extra query parameters (added or overriding). */
  extra?: Record<string, string>;
}

/** An authorization request ready to open, and what the token exchange will need. */
export interface PreparedAuthorization {
  url: URL;
  state: string;
  redirectUri: string;
  /** The PKCE verifier (`undefined` when `pkce: 'none'`). */
  verifier?: string;
}

/** The end of an authorization: the URL the AS redirected to, and what it carried. */
export interface AuthorizationOutcome extends PreparedAuthorization {
  callback: URL;
  code?: string;
  error?: string;
}

/**
 * The `Authorization` header of `client_secret_basic` (RFC 6749 §2.3.1): id and secret each
 * form-urlencoded first, then `id:secret` in base64. Without the encoding step a secret holding `:`
 * or a non-ASCII character would be read wrongly by a strict server.
 */
export function clientSecretBasic(credentials: ClientSecretCredentials): string {
  const encode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2);
  return `Basic ${Buffer.from(`${encode(credentials.id)}:${encode(credentials.secret)}`, 'utf8').toString('base64')}`;
}

/**
 * POSTs `application/x-www-form-urlencoded` fields to an OAuth endpoint (token, revocation,
 * introspection) and returns the answer as it came, refusals included; optionally as a confidential
 * client with `client_secret_basic` (public and `client_secret_post` clients put `client_id` and
 * `client_secret` in `fields`).
 */
export async function postForm(url: string, fields: Record<string, string> | URLSearchParams, options: PostFormOptions = {}): Promise<FormEndpointAnswer> {
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  if (options.clientSecretBasic !== undefined) headers['authorization'] = clientSecretBasic(options.clientSecretBasic);
  const fetchImpl = options.fetch ?? ((input: string, init: RequestInit) => fetch(input, init));
  const response = await fetchImpl(url, { method: 'POST', headers, body: new URLSearchParams(fields).toString(), signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = text === '' ? {} : JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON (an HTML error page): the status tells the test what happened.
  }
  return { status: response.status, headers: response.headers, body };
}

/** The loopback redirect URI of a native test client (nothing listens there: the browser stops before it). */
export const DEFAULT_REDIRECT_URI = 'http://127.0.0.1:43117/callback';

/**
 * The RFC 8414 metadata URL of an issuer with a path: `/.well-known/oauth-authorization-server` is
 * inserted before the path (`https://as/oauth` → `https://as/.well-known/oauth-authorization-server/oauth`).
 */
export function authorizationServerMetadataUrl(issuer: string): string {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/+$/, '');
  return new URL(`/.well-known/oauth-authorization-server${path}`, url.origin).href;
}

/**
 * The RFC 9728 metadata URL of a protected resource with a path: `/.well-known/oauth-protected-resource`
 * inserted before the path (`http://h/demo/default/mcp` → `http://h/.well-known/oauth-protected-resource/demo/default/mcp`).
 */
export function protectedResourceMetadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/+$/, '');
  return new URL(`/.well-known/oauth-protected-resource${path}`, url.origin).href;
}

/** Reads the authorization server's metadata (RFC 8414) and checks that it names the issuer exactly (S-158). */
export async function discoverAuthorizationServer(issuer: string): Promise<AuthorizationServerMetadata> {
  const response = await fetch(authorizationServerMetadataUrl(issuer), { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`authorization server metadata of ${issuer}: HTTP ${response.status}`);
  const metadata = (await response.json()) as AuthorizationServerMetadata;
  if (metadata.issuer !== issuer) throw new Error(`the metadata names the issuer ${metadata.issuer}, not ${issuer}`);
  return metadata;
}

/**
 * An OAuth client written by hand with `fetch`, for raw-HTTP tests: Dynamic Client Registration,
 * authorization requests (PKCE S256 by default, or deliberately wrong), the code exchange and refresh.
 * Every endpoint answer is returned as it came, so attack tests can assert refusals.
 */
export class OAuthTestClient {
  private constructor(
    readonly metadata: AuthorizationServerMetadata,
    readonly client: RegisteredClient,
  ) {}

  /** Registers a public native client by DCR (RFC 7591) with a loopback redirect URI. */
  static async register(
    issuer: string,
    options: { redirectUris?: string[]; clientName?: string; metadata?: Record<string, unknown> } = {},
  ): Promise<OAuthTestClient> {
    const metadata = await discoverAuthorizationServer(issuer);
    if (metadata.registration_endpoint === undefined) throw new Error(`${issuer} offers no registration endpoint`);
    const response = await fetch(metadata.registration_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        client_name: options.clientName ?? 'e2e raw client',
        redirect_uris: options.redirectUris ?? [DEFAULT_REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        application_type: 'native',
        ...options.metadata,
      }),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
    if (response.status !== 201 && response.status !== 200) throw new Error(`registration refused: HTTP ${response.status} ${JSON.stringify(body)}`);
    return new OAuthTestClient(metadata, body as RegisteredClient);
  }

  /** A client known by its id only (a CIMD URL, or one registered elsewhere). */
  static async forClientId(issuer: string, clientId: string, redirectUris: string[]): Promise<OAuthTestClient> {
    return OAuthTestClient.fromMetadata(await discoverAuthorizationServer(issuer), { client_id: clientId, redirect_uris: redirectUris });
  }

  /**
   * A client of an authorization server whose metadata the test already has: read once for many
   * clients, or written by hand when the published URLs are not reachable from the test (a server
   * behind a proxy with an https public URL, tested on its plain-http listener).
   */
  static fromMetadata(metadata: AuthorizationServerMetadata, client: RegisteredClient): OAuthTestClient {
    return new OAuthTestClient(metadata, client);
  }

  /** Builds an authorization request URL (response_type=code) with a fresh state and PKCE pair. */
  prepareAuthorization(options: AuthorizationRequestOptions = {}): PreparedAuthorization {
    const redirectUri = options.redirectUri ?? this.client.redirect_uris[0] ?? DEFAULT_REDIRECT_URI;
    const state = options.state ?? randomState();
    const url = new URL(this.metadata.authorization_endpoint);
    url.searchParams.set('response_type', 'code');
    url.searchParams.set('client_id', this.client.client_id);
    url.searchParams.set('redirect_uri', redirectUri);
    url.searchParams.set('state', state);
    if (options.scope !== undefined) url.searchParams.set('scope', options.scope);
    if (options.resource !== undefined) url.searchParams.set('resource', options.resource);
    const mode = options.pkce ?? 'S256';
    let verifier: string | undefined;
    if (mode !== 'none') {
      const pair = createPkcePair();
      verifier = pair.verifier;
      url.searchParams.set('code_challenge', mode === 'S256' ? pair.challenge : pair.verifier);
      url.searchParams.set('code_challenge_method', mode);
    }
    for (const [name, value] of Object.entries(options.extra ?? {})) url.searchParams.set(name, value);
    return { url, state, redirectUri, ...(verifier === undefined ? {} : { verifier }) };
  }

  /**
   * Runs an authorization request through the browser as `user` and reads the redirect it ended on.
   * Checks `state` and, when present, RFC 9207 `iss` (a mismatch throws: a client must drop the answer).
   */
  async authorize(
    browser: OAuthBrowser,
    user: TestUser,
    options: AuthorizationRequestOptions & { consent?: ConsentDecision } = {},
  ): Promise<AuthorizationOutcome> {
    const prepared = this.prepareAuthorization(options);
    const callback = await browser.authorize(prepared.url, { ...user, consent: options.consent ?? 'approve' });
    return this.readCallback(prepared, callback);
  }

  /** Checks a callback URL against its request (state, iss) and extracts `code` or `error`. */
  readCallback(prepared: PreparedAuthorization, callback: URL): AuthorizationOutcome {
    const params = callback.searchParams;
    if (params.get('state') !== prepared.state) throw new Error(`the callback's state ${params.get('state')} is not the request's`);
    const iss = params.get('iss');
    if (iss !== null && iss !== this.metadata.issuer) throw new Error(`the callback's iss ${iss} is not the issuer ${this.metadata.issuer}`);
    const code = params.get('code');
    const error = params.get('error');
    return { ...prepared, callback, ...(code === null ? {} : { code }), ...(error === null ? {} : { error }) };
  }

  /** Exchanges an authorization code (RFC 6749 §4.1.3 + PKCE), with any parameter overridable. */
  async exchangeCode(
    code: string,
    options: { verifier?: string; redirectUri?: string; resource?: string; extra?: Record<string, string> } = {},
  ): Promise<TokenEndpointAnswer> {
    const form = new URLSearchParams({ grant_type: 'authorization_code', code, client_id: this.client.client_id });
    form.set('redirect_uri', options.redirectUri ?? this.client.redirect_uris[0] ?? DEFAULT_REDIRECT_URI);
    if (options.verifier !== undefined) form.set('code_verifier', options.verifier);
    if (options.resource !== undefined) form.set('resource', options.resource);
    for (const [name, value] of Object.entries(options.extra ?? {})) form.set(name, value);
    return this.tokenRequest(form);
  }

  /** Uses a refresh token (RFC 6749 §6). */
  async refresh(refreshToken: string, options: { resource?: string; scope?: string } = {}): Promise<TokenEndpointAnswer> {
    const form = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: this.client.client_id });
    if (options.resource !== undefined) form.set('resource', options.resource);
    if (options.scope !== undefined) form.set('scope', options.scope);
    return this.tokenRequest(form);
  }

  /** Posts any form to the token endpoint and returns the answer as it came. */
  async tokenRequest(form: URLSearchParams): Promise<TokenEndpointAnswer> {
    const answer = await postForm(this.metadata.token_endpoint, form);
    const { body } = answer;
    return { ...answer, ...(answer.status >= 200 && answer.status < 300 && typeof body['access_token'] === 'string' ? { tokens: body as TokenSet } : {}) };
  }
}

/** What `obtainToken` needs: where to sign in, for which resource and scopes, as whom. */
export interface ObtainTokenOptions {
  issuer: string;
  /** The resource indicator: an MCP URL, or the admin API's base URL. */
  resource: string;
  scope: string;
  user: TestUser;
  /** A browser to reuse (its sign-in session); a fresh one by default. */
  browser?: OAuthBrowser;
  /** A client to reuse; a fresh DCR registration by default. */
  client?: OAuthTestClient;
}

/**
 * Gets a token the way a real client does, for raw-HTTP tests: DCR registration, an authorization
 * code request with PKCE S256 played through the browser (sign in, approve), then the code exchange.
 * Throws with the authorization server's answer when any step is refused.
 */
export async function obtainToken(options: ObtainTokenOptions): Promise<TokenSet & { client: OAuthTestClient }> {
  const client = options.client ?? (await OAuthTestClient.register(options.issuer));
  const outcome = await client.authorize(options.browser ?? new OAuthBrowser(), options.user, { resource: options.resource, scope: options.scope });
  if (outcome.code === undefined) throw new Error(`authorization refused: ${outcome.callback.href}`);
  const answer = await client.exchangeCode(outcome.code, {
    ...(outcome.verifier === undefined ? {} : { verifier: outcome.verifier }),
    resource: options.resource,
  });
  if (answer.tokens === undefined) throw new Error(`code exchange refused: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
  return { ...answer.tokens, client };
}
