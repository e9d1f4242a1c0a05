import type * as Oidc from 'oidc-provider' with { 'resolution-mode': 'import' };
import { ADMIN_SCOPE, BASELINE_SCOPE, formatScopes, parseScopes } from '@mcp-platform/protocol-mcp';
import { checkOutboundUrl, type EgressPolicy, guardedLookup } from '@mcp-platform/shared-egress';
import type { ResolvedAuthorizationServerOptions } from '../authorization-server.options';
import type { ClientsService } from '../clients/clients.service';
import { redirectUriProblem } from '../clients/redirect-uri.policy';
import { isScopeAllowed } from '../identity/roles/role-scopes';
import type { TenantsService } from '../identity/tenants/tenants.service';
import type { UsersService } from '../identity/users/users.service';
import { PAGE_HEADERS, renderAuthorizationErrorPage } from '../pages/pages';
import { type AuthorizationPolicy, TENANT_ADMIN_ROLE_CLAIM } from './authorization-policy.service';
import type { ResourceServersService } from './resource-servers.service';
import { ScopeVocabulary } from './scope-vocabulary';

/** The signing algorithm of every token. */
export const TOKEN_SIGNING_ALG = 'RS256';

/** How long an authorization code lives: it is exchanged right after the redirect. */
const AUTHORIZATION_CODE_TTL_SECONDS = 60;
/** How long a user has to sign in and consent. */
const INTERACTION_TTL_SECONDS = 10 * 60;
/** How long the browser stays signed in at the authorization server. */
const SESSION_TTL_SECONDS = 8 * 3600;
/** ID tokens (only for clients asking for `openid`). */
const ID_TOKEN_TTL_SECONDS = 3600;

/** The public path of the provider (the issuer's path, `/oauth` unless the public URL has a prefix). */
export function issuerPath(options: Pick<ResolvedAuthorizationServerOptions, 'issuer'>): string {
  return new URL(options.issuer).pathname.replace(/\/+$/, '');
}

/** Cookie names: `__Host-`/`__Secure-` prefixed when the issuer is https (S-151); the prefixes need Secure. */
export function cookieNames(secure: boolean): { session: string; interaction: string; resume: string } {
  // `__Host-` requires Path=/; the interaction and resume cookies are path-scoped, so they take `__Secure-`.
  return secure
    ? { session: '__Host-oauth_session', interaction: '__Secure-oauth_interaction', resume: '__Secure-oauth_resume' }
    : { session: 'oauth_session', interaction: 'oauth_interaction', resume: 'oauth_resume' };
}

/** What the configuration's hooks call into. */
export interface OidcConfigurationDeps {
  options: ResolvedAuthorizationServerOptions;
  errors: typeof Oidc.errors;
  adapter: Oidc.AdapterFactory;
  /** Private JWKs, the current signer first. */
  jwks: Oidc.JWK[];
  cookieKeys: string[];
  resources: ResourceServersService;
  policy: AuthorizationPolicy;
  users: UsersService;
  clients: ClientsService;
  tenants: TenantsService;
}

/**
 * oidc-provider's configuration for the platform (S-156..S-176): authorization code with
 * PKCE S256 only, refresh tokens rotated on every use, client credentials, revocation, introspection,
 * dynamic registration, resource indicators mapped to the admin API or a virtual server, JWT access
 * tokens (RS256, `typ: at+jwt`) with the platform's claims. A fresh object per Provider: the provider
 * keeps and mutates what it is given.
 */
export function buildOidcConfiguration(deps: OidcConfigurationDeps): Oidc.Configuration {
  const { options, errors, resources, policy, users, clients, tenants } = deps;
  const secure = options.issuer.startsWith('https://');
  const basePath = issuerPath(options);
  const egress: EgressPolicy = { allowedHosts: options.cimd.allowedHosts };
  const signerKid = deps.jwks[0]?.kid;

  const getResourceServerInfo = async (ctx: Oidc.KoaContextWithOIDC, indicator: string, client: Oidc.Client): Promise<Oidc.ResourceServer> => {
    const description = await resources.describe(indicator);
    if (!description)
      throw new errors.InvalidTarget(`${indicator} is not a resource of this authorization server (an MCP server URL or the administration API URL)`);
    if (description.target.kind === 'mcp') {
      // Every grant, client credentials included: a disabled tenant gets no token (issue 13).
      const tenant = await tenants.find(description.target.tenant);
      if (!tenant || tenant.disabled) throw new errors.InvalidTarget(`tenant ${description.target.tenant} is disabled`);
    }
    let scopes = description.scopes;
    if (ctx.oidc.params?.['grant_type'] === 'client_credentials') {
      const target = description.target;
      const tenant = await clients.tenantOf(client.clientId);
      // A pre-registered client's scope, set by its administrator, is its ceiling (scopes ⊆ the client's allowed scope).
      const ceiling = parseScopes(client.scope);
      if (target.kind === 'admin') {
        // Automation of one tenant: a client its administrator registered with the admin scope acts as
        // a tenant administrator of that tenant (never as a platform administrator).
        if (!tenant || !isScopeAllowed(ceiling, ADMIN_SCOPE)) {
          throw new errors.InvalidTarget('the administration API takes client_credentials only from a client of a tenant whose scope includes admin');
        }
        const owner = await tenants.find(tenant);
        if (!owner || owner.disabled) throw new errors.InvalidTarget(`tenant ${tenant} is disabled`);
      } else if (tenant !== target.tenant) {
        throw new errors.InvalidTarget(
          tenant
            ? `client ${client.clientId} belongs to tenant ${tenant}, not ${target.tenant}`
            : 'client_credentials is only for clients an administrator registered for the tenant',
        );
      }
      scopes = scopes.filter((scope) => isScopeAllowed(ceiling, scope));
    }
    return {
      scope: scopes.join(' '),
      audience: indicator,
      accessTokenTTL: options.accessTokenTtlSeconds,
      accessTokenFormat: 'jwt',
      jwt: { sign: { alg: TOKEN_SIGNING_ALG, ...(signerKid ? { kid: signerKid } : {}) } },
    };
  };

  /**
   * `obtainable_scope` of an MCP token: the scopes of its server the caller could hold by asking
   * (`AuthorizationPolicy.obtainableScopes`), so the broker can list what a step-up unlocks without
   * asking anyone on the hot path (issue 13 item 13). Computed at every issuance, refreshes included,
   * so a change of roles shows with the next token.
   */
  const obtainableScopeClaim = async (
    ctx: Oidc.KoaContextWithOIDC,
    token: Oidc.AccessToken | Oidc.ClientCredentials,
    audience: string,
  ): Promise<{ obtainable_scope?: string }> => {
    const description = await resources.describe(audience);
    const client = ctx.oidc.client;
    if (!description || !client) return {};
    let scopes: string[] = [];
    if (token.kind === 'ClientCredentials') {
      scopes = await policy.obtainableScopes(description, undefined, parseScopes(client.scope));
    } else {
      const user = await users.findById((token as Oidc.AccessToken).accountId);
      if (user) scopes = await policy.obtainableScopes(description, user, await clients.scopeCeiling(client));
    }
    return scopes.length ? { obtainable_scope: formatScopes(scopes) } : {};
  };

  const tenantIdClaim = async (slug: string): Promise<{ tenant_id?: string }> => {
    const tenant = await tenants.find(slug);
    return tenant ? { tenant_id: tenant.id } : {};
  };

  /** `invalid_target` for a refresh naming a resource outside its grant, or one that no longer exists (nothing consumed yet). */
  const checkRefreshTarget = async (ctx: Oidc.KoaContextWithOIDC): Promise<void> => {
    const requested: unknown = ctx.oidc.params?.['resource'];
    const granted = [ctx.oidc.entities.RefreshToken?.resource ?? []].flat();
    if (requested !== undefined && (typeof requested !== 'string' || !granted.includes(requested))) {
      throw new errors.InvalidTarget('the refresh token was not issued for this resource: refresh it for the resource it was granted for');
    }
    const resource = typeof requested === 'string' ? requested : granted.length === 1 ? granted[0] : undefined;
    if (resource !== undefined && !(await resources.describe(resource))) {
      throw new errors.InvalidTarget(`${resource} is not a resource of this authorization server any more`);
    }
  };

  return {
    adapter: deps.adapter,
    jwks: { keys: deps.jwks },
    clients: [],
    findAccount: async (_ctx, sub) => {
      // A disabled user (or tenant) has no account any more: refresh tokens stop working (S-174).
      if (!(await users.isActive(sub))) return undefined;
      return { accountId: sub, claims: () => ({ sub }) };
    },
    claims: { openid: ['sub'] },
    scopes: new ScopeVocabulary(['openid', 'offline_access']) as unknown as string[],
    responseTypes: ['code'],
    // spec S-159/S-160: PKCE for every authorization code request, S256 only.
    pkce: { methods: ['S256'], required: () => true },
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'],
    // Client secrets are stored hashed, so nothing may use one as an HMAC key (client_secret_jwt, HS*).
    enabledJWA: {
      clientAuthSigningAlgValues: ['RS256', 'PS256', 'ES256', 'EdDSA'],
      idTokenSigningAlgValues: ['RS256'],
      requestObjectSigningAlgValues: ['RS256', 'PS256', 'ES256', 'EdDSA'],
    },
    clientDefaults: {
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: TOKEN_SIGNING_ALG,
    },
    extraClientMetadata: {
      properties: ['software_id', 'software_version'],
      validator: (ctx, key, _value, metadata) => {
        // oidc-provider calls this once per extra property; the platform's whole-client rules run once, on the first.
        if (key !== 'software_id') return;
        const applicationType = metadata['application_type'] === 'native' ? 'native' : 'web';
        const redirectUris = Array.isArray(metadata['redirect_uris']) ? (metadata['redirect_uris'] as string[]) : [];
        for (const uri of redirectUris) {
          const problem = redirectUriProblem(uri, applicationType);
          // spec S-170: only https or loopback http redirect URIs.
          // A description starting with `redirect_uris` makes the provider answer `invalid_redirect_uri` (RFC 7591 §3.2.2).
          if (problem) throw new errors.InvalidClientMetadata(`redirect_uris: ${problem}`);
        }
        const grantTypes = Array.isArray(metadata['grant_types']) ? (metadata['grant_types'] as string[]) : [];
        if (ctx && grantTypes.includes('client_credentials')) {
          throw new errors.InvalidClientMetadata('client_credentials is only for clients an administrator registers for a tenant');
        }
      },
    },
    cookies: {
      names: cookieNames(secure),
      keys: deps.cookieKeys,
      // spec S-151: HttpOnly, SameSite=Lax, signed, Secure (with the prefixes) over https.
      long: { signed: true, httpOnly: true, sameSite: 'lax', secure },
      short: { signed: true, httpOnly: true, sameSite: 'lax', secure },
    },
    discovery: {
      // spec S-162: URL-shaped client ids are fetched as Client ID Metadata Documents.
      client_id_metadata_document_supported: true,
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      introspection: {
        enabled: true,
        // Resource servers verify the JWTs themselves; a client may introspect only its own tokens.
        allowedPolicy: (ctx, client, token) => token.clientId === client.clientId,
      },
      registration: { enabled: true, initialAccessToken: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => {
          // spec S-161: clients name the resource; the token exchange reuses the one granted.
          if (oneOf) return oneOf;
          throw new errors.InvalidTarget('the resource parameter is required (RFC 8707): the MCP server URL, or the administration API URL');
        },
        useGrantedResource: () => true,
        getResourceServerInfo,
      },
    },
    // Tokens name the tenant by slug (for people and routing) and by its immutable id (`tenant_id`): a
    // tenant deleted and created again with the same slug has a new id, and the old one's tokens are revoked.
    extraTokenClaims: async (ctx, token) => {
      const audience = token.resourceServer?.audience;
      const target = audience ? resources.parse(audience) : undefined;
      if (!target || !audience) return undefined;
      if (target.kind === 'mcp')
        return { tenant: target.tenant, ...(await tenantIdClaim(target.tenant)), ...(await obtainableScopeClaim(ctx, token, audience)) };
      if (token.kind === 'ClientCredentials') {
        // A tenant's automation client (checked in getResourceServerInfo): a tenant administrator of its tenant.
        const tenant = await clients.tenantOf((token as Oidc.ClientCredentials).clientId ?? '');
        return tenant ? { tenant, ...(await tenantIdClaim(tenant)), roles: [TENANT_ADMIN_ROLE_CLAIM] } : { roles: [] };
      }
      // The admin API: the user's tenant when they have one, and their administrative roles.
      const user = token.kind === 'AccessToken' ? await users.findById((token as Oidc.AccessToken).accountId) : undefined;
      if (!user) return { roles: [] };
      return { ...(user.tenant ? { tenant: user.tenant, ...(await tenantIdClaim(user.tenant)) } : {}), roles: policy.adminRoles(user) };
    },
    ttl: {
      AccessToken: options.accessTokenTtlSeconds,
      ClientCredentials: options.accessTokenTtlSeconds,
      AuthorizationCode: AUTHORIZATION_CODE_TTL_SECONDS,
      IdToken: ID_TOKEN_TTL_SECONDS,
      Interaction: INTERACTION_TTL_SECONDS,
      Session: SESSION_TTL_SECONDS,
      Grant: options.refreshTokenTtlSeconds,
      RefreshToken: options.refreshTokenTtlSeconds,
    },
    // Refresh tokens for every client with the grant type, without `offline_access` (MCP clients do not ask for it).
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    // Refresh tokens outlive the browser session at the authorization server.
    expiresWithSession: () => false,
    // spec S-174: a new refresh token on every use; the provider revokes the grant when a used one comes back.
    // The provider asks this after every other check of the refresh request and before it consumes the
    // token, but checks the requested resource only after consuming it: a refresh refused for its
    // resource would leave the client a used token whose next, legitimate use looks like a reuse and
    // revokes the grant. So the resource is checked here, first.
    rotateRefreshToken: async (ctx) => {
      await checkRefreshTarget(ctx);
      return true;
    },
    interactions: { url: (_ctx, interaction) => `${basePath}/interaction/${interaction.uid}` },
    // Outbound fetches of the provider itself (a client's jwks_uri) pass the same SSRF guard as CIMD:
    // IP literals are judged here (they skip the DNS lookup), host names in the lookup.
    httpOptions: (url) => {
      checkOutboundUrl(url.href, egress, ['https:']);
      return { dnsLookup: guardedLookup(egress) as never, signal: AbortSignal.timeout(5_000) };
    },
    // Browser-based clients may call the token endpoint from the origin of one of their redirect URIs.
    clientBasedCORS: (_ctx, origin, client) => (client.redirectUris ?? []).some((uri) => originOf(uri) === origin),
    renderError: (ctx, out, error) => {
      ctx.set(PAGE_HEADERS);
      ctx.type = 'html';
      // An unknown client id at the authorization endpoint: a desktop client holding a registration from
      // before this server was reset. The page tells the user how to make it register again.
      const clientId = ctx.oidc?.params?.['client_id'];
      const unknownClient =
        out.error === 'invalid_client' && (error as { error_detail?: string }).error_detail === 'client not found' && typeof clientId === 'string';
      ctx.body = renderAuthorizationErrorPage({
        error: String(out.error),
        ...(typeof out.error_description === 'string' ? { description: out.error_description } : {}),
        ...(unknownClient ? { unknownClientId: clientId } : {}),
      });
    },
  };
}

/** The default scope of a resource when a request names none (RFC 6749 §3.3): the baseline of MCP servers, `admin` for the admin API. */
export function defaultScopeFor(target: { kind: 'admin' | 'mcp' }): string {
  return target.kind === 'admin' ? ADMIN_SCOPE : BASELINE_SCOPE;
}

function originOf(uri: string): string | undefined {
  try {
    return new URL(uri).origin;
  } catch {
    return undefined;
  }
}
