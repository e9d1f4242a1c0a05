import { Injectable, Logger } from '@nestjs/common';
import { z } from 'zod';
import { toolExecutor } from '@mcp-platform/protocol-contracts';
import { ADMIN_SCOPE, formatScopes, parseScopes, scopeCovers } from '@mcp-platform/protocol-mcp';
import { IdSource } from '@mcp-platform/shared-clock';
import { IdentityError, IdentityErrorCode } from '../identity/identity.errors';
import { TenantsService } from '../identity/tenants/tenants.service';
import { OidcRecordsRepository } from '../oidc-records/oidc-records.repository';
import { AccessRevocations } from '../revocations/access-revocations.service';
import { hashClientSecret, newClientSecret } from './client-secret';
import { ClientsRepository, type StoredClient } from './clients.repository';
import { type ApplicationType, redirectUriProblem } from './redirect-uri.policy';

/** Grant types an administrator may give a pre-registered client. */
export const CLIENT_GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'] as const;
/** How a pre-registered client authenticates at the token endpoint (`none`: a public client, PKCE only). */
export const CLIENT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;

/** What an administrator gives for a new client (RFC 7591 names, so an admin API can pass its body through). */
export const NewClientInputSchema = z.object({
  client_name: z.string().trim().min(1).max(200),
  redirect_uris: z.array(z.string().min(1).max(2000)).max(20).optional(),
  grant_types: z.array(z.enum(CLIENT_GRANT_TYPES)).min(1),
  token_endpoint_auth_method: z.enum(CLIENT_AUTH_METHODS),
  /** The scopes the client may ever obtain (space-separated); required for `client_credentials`. */
  scope: z.string().max(2000).optional(),
  application_type: z.enum(['web', 'native']).optional(),
});
export type NewClientInput = z.input<typeof NewClientInputSchema>;

/** A client as administrators see it (never its secret). */
export interface OAuthClient {
  clientId: string;
  /** The owning tenant; `null` for a client that registered itself (DCR). */
  tenant: string | null;
  clientName: string;
  redirectUris: string[];
  grantTypes: string[];
  tokenEndpointAuthMethod: string;
  applicationType: ApplicationType;
  /** The scopes the client may obtain at most; absent: no limit beyond the user's roles. */
  scope?: string;
  createdAt: Date;
}

/** A new client, and its secret when it is confidential: shown this once, stored only as a hash. */
export interface CreatedClient {
  client: OAuthClient;
  clientSecret?: string;
}

/**
 * OAuth clients: pre-registered by a tenant's administrator (S-169), or dynamically registered (RFC
 * 7591, through oidc-provider's registration endpoint). Every administrative method names its tenant
 * and refuses clients of other tenants as not found.
 */
@Injectable()
export class ClientsService {
  private readonly logger = new Logger(ClientsService.name);

  constructor(
    private readonly repository: ClientsRepository,
    private readonly tenants: TenantsService,
    private readonly records: OidcRecordsRepository,
    private readonly revocations: AccessRevocations,
    private readonly ids: IdSource,
  ) {}

  /** The tenant's clients; `NotFound` for an unknown tenant. */
  async list(tenant: string): Promise<OAuthClient[]> {
    await this.requireTenant(tenant);
    return (await this.repository.list(tenant)).map(toClient);
  }

  /** One client of the tenant; `NotFound` when unknown or another tenant's. */
  async get(tenant: string, clientId: string): Promise<OAuthClient> {
    const stored = await this.repository.find(clientId);
    if (!stored || stored.tenant !== tenant) throw new IdentityError(IdentityErrorCode.NotFound, `no client ${clientId} in tenant ${tenant}`);
    return toClient(stored);
  }

  /**
   * Registers a client for the tenant. `Invalid` when the metadata breaks a rule (redirect URIs per
   * S-170, grant types and authentication that do not fit together, bad scopes). A confidential
   * client's secret is generated here and returned once.
   */
  async create(tenant: string, input: NewClientInput): Promise<CreatedClient> {
    await this.requireTenant(tenant);
    const parsed = NewClientInputSchema.safeParse(input);
    if (!parsed.success)
      throw new IdentityError(
        IdentityErrorCode.Invalid,
        parsed.error.issues.map((issue) => `${issue.path.join('.') || 'client'}: ${issue.message}`).join('; '),
      );
    const metadata = clientMetadata(parsed.data);
    const confidential = parsed.data.token_endpoint_auth_method !== 'none';
    const clientSecret = confidential ? newClientSecret() : undefined;
    // Not a secret (RFC 6749 §2.2): a plain identifier. Never URL-shaped: those name CIMD clients.
    const clientId = this.ids.newId();
    const inserted = await this.repository.insert({ clientId, tenant, metadata, secretHash: clientSecret ? hashClientSecret(clientSecret) : null });
    if (!inserted) throw new IdentityError(IdentityErrorCode.NotFound, `no tenant ${tenant}`);
    const stored = await this.repository.find(clientId);
    if (!stored) throw new Error(`client ${clientId} vanished after insert`);
    return { client: toClient(stored), ...(clientSecret ? { clientSecret } : {}) };
  }

  /**
   * Deletes the tenant's client and revokes its grants, codes and refresh tokens, and the access tokens
   * it obtained for itself (client_credentials, whose subject is the client).
   */
  async delete(tenant: string, clientId: string): Promise<void> {
    if (!(await this.repository.delete(tenant, clientId))) throw new IdentityError(IdentityErrorCode.NotFound, `no client ${clientId} in tenant ${tenant}`);
    await this.revocations.revokeSubject(clientId);
    const revoked = await this.records.deleteByClientId(clientId);
    this.logger.log(`client ${clientId} of tenant ${tenant} deleted; ${revoked} grant record(s) revoked`);
  }

  /**
   * The tenant a client administers through the admin API with its own tokens (client_credentials):
   * a client of an enabled tenant with that grant and the `admin` scope; `undefined` for any other.
   */
  async administeredTenant(clientId: string): Promise<string | undefined> {
    const stored = await this.repository.find(clientId);
    if (!stored?.tenant) return undefined;
    const client = toClient(stored);
    if (!client.grantTypes.includes('client_credentials') || !parseScopes(client.scope).some((scope) => scopeCovers(scope, ADMIN_SCOPE))) return undefined;
    const tenant = await this.tenants.find(stored.tenant);
    return tenant && !tenant.disabled ? tenant.slug : undefined;
  }

  /** The tenant of a pre-registered client; `null` for a DCR client, `undefined` for an unknown one. */
  async tenantOf(clientId: string): Promise<string | null | undefined> {
    return (await this.repository.find(clientId))?.tenant;
  }

  /**
   * The scopes the client may obtain at most: the `scope` an administrator set on a pre-registered
   * client. A self-registered (DCR) or CIMD client's `scope` is only what it expects to ask for
   * (RFC 7591), not a limit: it may step up to scopes it learns from a 403 challenge later (S-142).
   * `undefined`: no limit of the client's own.
   */
  async scopeCeiling(client: { clientId: string; scope?: string | undefined }): Promise<string[] | undefined> {
    if (typeof client.scope !== 'string' || !client.scope) return undefined;
    return (await this.tenantOf(client.clientId)) ? parseScopes(client.scope) : undefined;
  }

  /**
   * The metadata oidc-provider builds the client from, with `client_secret` set to the stored hash
   * (the provider's secret comparison is replaced by `verifyClientSecret`).
   */
  async providerMetadata(clientId: string): Promise<Record<string, unknown> | undefined> {
    const stored = await this.repository.find(clientId);
    if (!stored) return undefined;
    return { ...stored.metadata, client_id: stored.clientId, ...(stored.secretHash ? { client_secret: stored.secretHash } : {}) };
  }

  /**
   * Stores what oidc-provider's registration endpoint accepted (RFC 7591): the secret only as a hash.
   * A registration never overwrites a pre-registered client.
   */
  async saveRegistered(clientId: string, metadata: Record<string, unknown>): Promise<void> {
    const { client_secret: secret, client_id: _id, ...rest } = metadata;
    const secretHash = typeof secret === 'string' && secret ? hashClientSecret(secret) : null;
    if (await this.repository.insert({ clientId, tenant: null, metadata: rest, secretHash })) return;
    if (!(await this.repository.updateRegistered(clientId, rest, secretHash))) throw new Error(`client id ${clientId} is taken by a pre-registered client`);
  }

  /** Deletes a dynamically registered client (RFC 7592) and its grants. */
  async deleteRegistered(clientId: string): Promise<void> {
    if (await this.repository.delete(null, clientId)) await this.records.deleteByClientId(clientId);
  }

  private async requireTenant(tenant: string): Promise<void> {
    if (!(await this.tenants.find(tenant))) throw new IdentityError(IdentityErrorCode.NotFound, `no tenant ${tenant}`);
  }
}

/** Checks the rules the schema cannot express and builds the stored metadata. */
function clientMetadata(input: z.output<typeof NewClientInputSchema>): Record<string, unknown> {
  const problems: string[] = [];
  const grantTypes = [...new Set(input.grant_types)];
  const applicationType: ApplicationType = input.application_type ?? 'web';
  const redirectUris = [...new Set(input.redirect_uris ?? [])];
  const usesCode = grantTypes.includes('authorization_code');
  if (usesCode && redirectUris.length === 0) problems.push('redirect_uris: the authorization_code grant needs at least one redirect URI');
  if (!usesCode && redirectUris.length > 0) problems.push('redirect_uris: only clients with the authorization_code grant have redirect URIs');
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri, applicationType);
    if (problem) problems.push(`redirect_uris: ${problem}`);
  }
  if (grantTypes.includes('refresh_token') && !usesCode) problems.push('grant_types: refresh_token needs authorization_code');
  if (grantTypes.includes('client_credentials') && input.token_endpoint_auth_method === 'none') {
    problems.push('grant_types: client_credentials needs a confidential client (client_secret_basic or client_secret_post)');
  }
  const scopes = parseScopes(input.scope);
  for (const scope of scopes) if (!toolExecutor.ScopeNameSchema.safeParse(scope).success) problems.push(`scope: not a scope: ${JSON.stringify(scope)}`);
  if (grantTypes.includes('client_credentials') && scopes.length === 0) problems.push('scope: a client_credentials client needs the scopes it may obtain');
  if (problems.length) throw new IdentityError(IdentityErrorCode.Invalid, problems.join('; '));
  return {
    client_name: input.client_name,
    application_type: applicationType,
    grant_types: grantTypes,
    response_types: usesCode ? ['code'] : [],
    redirect_uris: redirectUris,
    token_endpoint_auth_method: input.token_endpoint_auth_method,
    ...(scopes.length ? { scope: formatScopes(scopes) } : {}),
  };
}

function toClient(stored: StoredClient): OAuthClient {
  const metadata = stored.metadata;
  const scope = typeof metadata['scope'] === 'string' ? metadata['scope'] : undefined;
  return {
    clientId: stored.clientId,
    tenant: stored.tenant,
    clientName: typeof metadata['client_name'] === 'string' ? metadata['client_name'] : stored.clientId,
    redirectUris: stringArray(metadata['redirect_uris']),
    grantTypes: stringArray(metadata['grant_types'] ?? ['authorization_code']),
    tokenEndpointAuthMethod: typeof metadata['token_endpoint_auth_method'] === 'string' ? metadata['token_endpoint_auth_method'] : 'client_secret_basic',
    applicationType: metadata['application_type'] === 'native' ? 'native' : 'web',
    ...(scope ? { scope } : {}),
    createdAt: stored.createdAt,
  };
}

function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}
