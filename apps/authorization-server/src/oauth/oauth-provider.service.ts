import type { IncomingMessage, ServerResponse } from 'node:http';
import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type * as Oidc from 'oidc-provider' with { 'resolution-mode': 'import' };
import { AUTHORIZATION_SERVER_OPTIONS } from '../authorization-server.constants';
import type { ResolvedAuthorizationServerOptions } from '../authorization-server.options';
import { ClientMetadataService } from '../client-metadata/client-metadata.service';
import { isHashedClientSecret, verifyClientSecret } from '../clients/client-secret';
import { ClientsService } from '../clients/clients.service';
import { TenantsService } from '../identity/tenants/tenants.service';
import { UsersService } from '../identity/users/users.service';
import { oidcAdapterFactory } from '../oidc-records/oidc.adapter';
import { OidcRecordsRepository } from '../oidc-records/oidc-records.repository';
import { SigningKeysService } from '../signing-keys/signing-keys.service';
import { AuthorizationPolicy } from './authorization-policy.service';
import { ClientStoreAdapter } from './client-store.adapter';
import { OAuthSecretsService } from './oauth-secrets.service';
import { buildOidcConfiguration, defaultScopeFor, issuerPath } from './oidc-provider.configuration';
import { ResourceServersService } from './resource-servers.service';

/** oidc-provider's module (ESM-only; loaded with `import()`, which Node 20.19+ also serves to CommonJS). */
export type OidcModule = typeof Oidc;
/** One configured provider. */
export type OidcProvider = Oidc.default;

/**
 * Owns the oidc-provider instance. Its signing keys are part of its configuration, so a key rotation
 * (here or on another replica, `SigningKeysService.onRotated`) builds a new provider and swaps it in;
 * requests in flight finish on the old one, and both share every stored artifact.
 */
@Injectable()
export class OAuthProviderService implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(OAuthProviderService.name);
  private oidc?: OidcModule;
  private current?: OidcProvider;
  private currentHandler?: (request: IncomingMessage, response: ServerResponse) => Promise<void>;
  private unsubscribe?: () => void;
  private rebuilding: Promise<void> = Promise.resolve();

  constructor(
    @Inject(AUTHORIZATION_SERVER_OPTIONS) private readonly options: ResolvedAuthorizationServerOptions,
    private readonly records: OidcRecordsRepository,
    private readonly clients: ClientsService,
    private readonly documents: ClientMetadataService,
    private readonly resources: ResourceServersService,
    private readonly policy: AuthorizationPolicy,
    private readonly users: UsersService,
    private readonly signingKeys: SigningKeysService,
    private readonly secrets: OAuthSecretsService,
    private readonly tenants: TenantsService,
  ) {}

  async onModuleInit(): Promise<void> {
    this.oidc = await import('oidc-provider');
    this.current = await this.build();
    this.unsubscribe = this.signingKeys.onRotated(() => {
      this.rebuilding = this.rebuilding.then(() => this.rebuild());
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  /** The provider now serving requests. */
  provider(): OidcProvider {
    if (!this.current) throw new Error('the OAuth provider is not ready (onModuleInit has not run)');
    return this.current;
  }

  /** The current provider's Koa request handler (made once per provider). */
  handler(): (request: IncomingMessage, response: ServerResponse) => Promise<void> {
    const provider = this.provider();
    this.currentHandler ??= provider.callback() as (request: IncomingMessage, response: ServerResponse) => Promise<void>;
    return this.currentHandler;
  }

  /** oidc-provider's error classes (`errors.AccessDenied`, ...). */
  errors(): OidcModule['errors'] {
    if (!this.oidc) throw new Error('the OAuth provider is not ready (onModuleInit has not run)');
    return this.oidc.errors;
  }

  /** The provider's public path (`/oauth`, or the issuer's path). */
  basePath(): string {
    return issuerPath(this.options);
  }

  /**
   * Makes a request look, to the provider, as if it arrived at the public origin: the Host and the
   * protocol are the issuer's (so every URL the provider builds is the issuer's, whatever Host a
   * client sent), and `X-Forwarded-For` is kept only behind a trusted proxy.
   */
  pinToIssuer(request: IncomingMessage): void {
    const issuer = new URL(this.options.issuer);
    request.headers.host = issuer.host;
    request.headers['x-forwarded-proto'] = issuer.protocol.slice(0, -1);
    delete request.headers['x-forwarded-host'];
    if (!this.options.trustProxy) delete request.headers['x-forwarded-for'];
  }

  private async rebuild(): Promise<void> {
    try {
      const provider = await this.build();
      this.current = provider;
      this.currentHandler = provider.callback() as (request: IncomingMessage, response: ServerResponse) => Promise<void>;
      this.logger.log('signing keys changed: the OAuth provider now signs with the current key');
    } catch (error) {
      this.logger.error(`rebuilding the OAuth provider after a key rotation failed: ${(error as Error).stack ?? String(error)}`);
    }
  }

  private async build(): Promise<OidcProvider> {
    const oidc = this.oidc;
    if (!oidc) throw new Error('oidc-provider is not loaded');
    const [jwks, secrets] = await Promise.all([this.signingKeys.privateJwks(), this.secrets.secrets()]);
    const clientsAdapter = new ClientStoreAdapter(this.clients, this.documents, (description) => new oidc.errors.InvalidClient(description));
    const configuration = buildOidcConfiguration({
      options: this.options,
      errors: oidc.errors,
      adapter: oidcAdapterFactory(this.records, clientsAdapter),
      jwks: jwks as Oidc.JWK[],
      cookieKeys: secrets.cookieKeys,
      resources: this.resources,
      policy: this.policy,
      users: this.users,
      clients: this.clients,
      tenants: this.tenants,
    });
    const provider = new oidc.default(this.options.issuer, configuration);
    // The Host and protocol are pinned by `pinToIssuer`, which writes X-Forwarded-Proto itself.
    provider.proxy = true;
    // Client secrets are stored as hashes (clients/client-secret.ts): compare the presented one with it.
    provider.Client.prototype.compareClientSecret = function compareClientSecret(this: { clientSecret?: string }, actual: string): boolean {
      return verifyClientSecret(this.clientSecret ?? '', actual);
    } as never;
    provider.use(this.defaultScope());
    provider.use(hideSecretHash);
    provider.on('server_error', (_ctx: unknown, error: Error) => this.logger.error(`OAuth server error: ${error.stack ?? error.message}`));
    provider.on('grant.revoked', (_ctx: unknown, grantId: string) => this.logger.log(`grant ${grantId} revoked`));
    provider.on('grant.error', (ctx: Oidc.KoaContextWithOIDC, error: Error & { error_detail?: string }) => {
      // spec S-174 and OAuth 2.1 §4.1.3: a used refresh token or code came back; the provider revoked the whole grant.
      if (error.error_detail === 'refresh token already used' || error.error_detail === 'authorization code already consumed') {
        this.logger.warn(`${error.error_detail} (client ${ctx.oidc?.client?.clientId ?? '?'}): the grant was revoked`);
      }
    });
    return provider;
  }

  /**
   * A request without `scope` gets the resource's baseline (RFC 6749 §3.3 lets the server choose a
   * default): `mcp` for an MCP server, `admin` for the admin API.
   */
  private defaultScope(): (ctx: Oidc.KoaContextWithOIDC, next: () => Promise<void>) => Promise<void> {
    return async (ctx, next) => {
      if (ctx.method === 'GET' && ctx.path === '/auth' && !ctx.query['scope'] && typeof ctx.query['resource'] === 'string') {
        const target = this.resources.parse(ctx.query['resource']);
        if (target) ctx.query = { ...ctx.query, scope: defaultScopeFor(target) };
      }
      await next();
    };
  }
}

/** The registration read (RFC 7592) shows the stored metadata: never the secret's hash. */
async function hideSecretHash(ctx: Oidc.KoaContextWithOIDC, next: () => Promise<void>): Promise<void> {
  await next();
  const body = ctx.body as Record<string, unknown> | undefined;
  if (body && typeof body === 'object' && isHashedClientSecret(body['client_secret'] as string | undefined)) delete body['client_secret'];
}
