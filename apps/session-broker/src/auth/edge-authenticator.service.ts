import type { IncomingHttpHeaders } from 'node:http';
import { Inject, Injectable, Logger, type OnModuleInit } from '@nestjs/common';
import type { Principal } from '@mcp-platform/protocol-contracts';
import { BASELINE_SCOPE, missingScopes } from '@mcp-platform/protocol-mcp';
import {
  AccessTokenVerifier,
  bearerChallenge,
  type BearerErrorCode,
  KeySetUnavailableError,
  parseBearerAuthorization,
  TokenRejectedError,
} from '@mcp-platform/shared-auth';
import { isRpcError } from '@mcp-platform/shared-messaging';
import { type ResolvedSessionBrokerOptions, SESSION_BROKER_OPTIONS } from '../session-broker.options';
import type { VirtualServer } from '../virtual-servers/virtual-server.cache';
import { ProtectedResources } from './protected-resources';
import { TokenRevocations } from './token-revocations.service';

/** What the edge needs to know about a request to authenticate it. */
export interface AuthenticationRequest {
  headers: IncomingHttpHeaders;
  /** The parsed query string. */
  query?: Readonly<Record<string, unknown>>;
}

/** A refusal, ready to answer: status, headers (the challenge) and a message safe to show. */
export interface AuthRefusal {
  status: 400 | 401 | 403 | 503;
  headers: Record<string, string>;
  message: string;
}

/** The caller, or why it may not proceed. */
/** An accepted caller: the principal, and when its access token expires (none for anonymous callers). */
export type AuthDecision = { ok: true; principal: Principal; expiresAt?: number } | ({ ok: false } & AuthRefusal);

/**
 * The broker as an OAuth resource server: runs on every request to a virtual server, after the
 * Host/Origin/Accept checks and before any session or era work, and turns the `Authorization` header
 * into the principal that travels over the bus. The token itself goes no further (S-146).
 */
@Injectable()
export class EdgeAuthenticator implements OnModuleInit {
  private readonly logger = new Logger(EdgeAuthenticator.name);
  private readonly anonymousTenants: ReadonlySet<string>;

  constructor(
    private readonly verifier: AccessTokenVerifier,
    private readonly resources: ProtectedResources,
    private readonly revocations: TokenRevocations,
    @Inject(SESSION_BROKER_OPTIONS) options: ResolvedSessionBrokerOptions,
  ) {
    this.anonymousTenants = new Set(options.auth.anonymousTenants);
  }

  onModuleInit(): void {
    if (this.anonymousTenants.size > 0) {
      this.logger.warn(
        `DEV_ANONYMOUS_TENANTS is set: every virtual server of ${[...this.anonymousTenants].join(', ')} accepts callers WITHOUT a token. ` +
          'This is a development switch; never use it in production.',
      );
    }
  }

  async authenticate(request: AuthenticationRequest, server: VirtualServer): Promise<AuthDecision> {
    const where = `${server.tenant}/${server.name}`;
    // A disabled tenant lets nobody in: callers with a token, and those without on its public servers.
    if (server.disabled) {
      this.logger.debug(`${where}: refused a caller of a disabled tenant`);
      return { ok: false, status: 403, headers: {}, message: 'Forbidden: the tenant of this MCP server is disabled' };
    }
    // spec S-138: a token in the query string ends up in logs and histories; refuse it outright.
    if (request.query && Object.hasOwn(request.query, 'access_token')) {
      this.logger.debug(`${where}: refused an access token in the query string`);
      return this.refuse(server, 400, 'invalid_request', 'access tokens are accepted only in the Authorization header');
    }
    const presented = parseBearerAuthorization(request.headers.authorization);
    if (presented === 'malformed') {
      this.logger.debug(`${where}: refused a malformed Authorization header`);
      // spec S-145: a malformed authorization request is a 400.
      return this.refuse(server, 400, 'invalid_request', 'the Authorization header must be "Bearer <access token>"');
    }
    if (presented === undefined) {
      if (server.public || this.anonymousTenants.has(server.tenant)) {
        return { ok: true, principal: { subject: 'anonymous', tenant: server.tenant, scopes: [], anonymous: true } };
      }
      this.logger.debug(`${where}: no access token`);
      // spec S-134/S-135: point the client at the metadata and name the baseline scope; no error code (RFC 6750 §3.1).
      return this.refuse(server, 401, undefined, 'this MCP server requires an access token');
    }

    let token;
    try {
      token = await this.verifier.verify(presented, { audience: this.resources.resourceUrl(server) });
      await this.revocations.ready();
    } catch (error) {
      if (error instanceof TokenRejectedError) {
        this.logger.log(`${where}: refused an access token (${error.reason})`);
        // spec S-141: invalid or expired → 401 with the challenge.
        return this.refuse(server, 401, 'invalid_token', error.message);
      }
      if (error instanceof KeySetUnavailableError) {
        this.logger.warn(
          `${where}: cannot verify tokens, the signing keys are unavailable: ${String((error.cause as Error | undefined)?.message ?? error.cause)}`,
        );
        return { ok: false, status: 503, headers: { 'retry-after': '1' }, message: 'Service Unavailable: tokens cannot be verified right now; retry later' };
      }
      if (!isRpcError(error)) throw error;
      // The revocations could not be loaded: no token is accepted without them.
      this.logger.warn(`${where}: cannot check tokens, the revocations are unavailable: ${error.message}`);
      return { ok: false, status: 503, headers: { 'retry-after': '1' }, message: 'Service Unavailable: tokens cannot be verified right now; retry later' };
    }
    if (token.tenant !== server.tenant) {
      this.logger.log(`${where}: refused an access token of another tenant`);
      return this.refuse(server, 401, 'invalid_token', 'the token was not issued for this tenant');
    }
    // The tenant's immutable id binds the token to this tenant, not to a slug a new tenant may take again.
    if (
      token.tenantId === undefined ||
      this.revocations.isRevoked({ subject: token.subject, tenantId: token.tenantId, ...(token.issuedAt === undefined ? {} : { issuedAt: token.issuedAt }) })
    ) {
      this.logger.log(
        `${where}: refused a revoked access token (its ${token.tenantId === undefined ? 'tenant id is missing' : 'user or tenant was disabled or deleted'})`,
      );
      return this.refuse(server, 401, 'invalid_token', 'the token was revoked: its user or tenant was disabled or deleted since it was issued');
    }
    if (!server.public && missingScopes(token.scopes, [BASELINE_SCOPE]).length > 0) {
      this.logger.log(`${where}: refused an access token without the ${BASELINE_SCOPE} scope`);
      return this.refuse(server, 403, 'insufficient_scope', `this MCP server needs the ${BASELINE_SCOPE} scope`);
    }
    return {
      ok: true,
      principal: {
        subject: token.subject,
        tenant: server.tenant,
        ...(token.clientId === undefined ? {} : { clientId: token.clientId }),
        scopes: token.scopes,
        ...(token.obtainableScopes === undefined ? {} : { obtainableScopes: token.obtainableScopes }),
        anonymous: false,
      },
      expiresAt: token.expiresAt,
    };
  }

  /**
   * The 403 step-up challenge for an operation that needs more scopes than the token has (S-142):
   * every scope the operation requires, in one challenge (S-143).
   */
  insufficientScope(server: Pick<VirtualServer, 'tenant' | 'name'>, scopes: readonly string[]): { status: 403; headers: Record<string, string> } {
    return {
      status: 403,
      headers: {
        'www-authenticate': bearerChallenge({
          resourceMetadata: this.resources.metadataUrl(server),
          scope: scopes,
          error: 'insufficient_scope',
          errorDescription: `this operation needs the scopes: ${scopes.join(' ')}`,
        }),
      },
    };
  }

  private refuse(server: VirtualServer, status: 400 | 401 | 403, error: BearerErrorCode | undefined, description: string): AuthDecision {
    const challenge = bearerChallenge({
      resourceMetadata: this.resources.metadataUrl(server),
      scope: BASELINE_SCOPE,
      ...(error === undefined ? {} : { error, errorDescription: description }),
    });
    return { ok: false, status, headers: { 'www-authenticate': challenge }, message: `${STATUS_TEXT[status]}: ${description}` };
  }
}

const STATUS_TEXT = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden' } as const;
