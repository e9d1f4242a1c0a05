import { type CanActivate, createParamDecorator, type ExecutionContext, Inject, Injectable, SetMetadata } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ADMIN_SCOPE } from '@mcp-platform/protocol-mcp';
import {
  AccessTokenVerifier,
  bearerChallenge,
  KeySetUnavailableError,
  parseBearerAuthorization,
  TokenRejectedError,
  type VerifiedAccessToken,
} from '@mcp-platform/shared-auth';
import { ADMIN_API_SETTINGS, type AdminApiSettings } from './admin.constants';
import { AdminApiError, AdminErrorCode } from './admin.errors';
import { type AdminAccessLevel, type AdminPrincipal, decideAdminAccess, withCurrentRights } from './admin-access';
import { AdminSubjects } from './admin-subjects.service';

const ACCESS_LEVEL = 'admin:access-level';

/** Declares what a controller's (or a route's) callers need: platform rights, or rights over the path's `{tenant}`. */
export const AdminAccess = (level: AdminAccessLevel) => SetMetadata(ACCESS_LEVEL, level);

/** The request as the guard leaves it: the verified caller attached for the routes and the audit log. */
export type AdminRequest = FastifyRequest & { adminPrincipal?: AdminPrincipal };

/** The verified caller of the current admin route (set by `AdminAuthGuard`). */
export const Actor = createParamDecorator((_data: unknown, context: ExecutionContext): AdminPrincipal => {
  const principal = context.switchToHttp().getRequest<AdminRequest>().adminPrincipal;
  // The guard runs before any parameter is resolved; a route without it is a wiring bug.
  if (!principal) throw new Error('admin route without AdminAuthGuard');
  return principal;
});

/**
 * Authenticates and authorizes every admin route: a Bearer JWT access token (RFC 6750 §2.1, header
 * only) issued by this authorization server for the admin API's audience (RFC 8707), verified
 * locally against the server's own signing keys; not revoked since it was issued (its user or tenant
 * disabled or deleted, even if enabled again since), its user still enabled, its roles cut down to
 * those the user still holds (`withCurrentRights`); then `decideAdminAccess` on its scope, roles and tenant
 * against the route's access level and `{tenant}` path parameter.
 */
@Injectable()
export class AdminAuthGuard implements CanActivate {
  constructor(
    private readonly verifier: AccessTokenVerifier,
    private readonly reflector: Reflector,
    private readonly subjects: AdminSubjects,
    @Inject(ADMIN_API_SETTINGS) private readonly settings: AdminApiSettings,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AdminRequest>();
    const level = this.reflector.getAllAndOverride<AdminAccessLevel | undefined>(ACCESS_LEVEL, [context.getHandler(), context.getClass()]);
    // Fail closed: a route that forgot to declare its level is treated as a platform route.
    const principal = await this.authenticate(request.headers.authorization);
    const tenant = (request.params as Record<string, string | undefined> | undefined)?.['tenant'];
    const decision = decideAdminAccess(principal, level ?? 'platform', tenant);
    if (!decision.allowed) {
      if (decision.reason === 'insufficient_scope') {
        throw new AdminApiError(AdminErrorCode.InsufficientScope, decision.message, {
          challenge: bearerChallenge({ resourceMetadata: this.settings.resourceMetadataUrl, scope: ADMIN_SCOPE, error: 'insufficient_scope' }),
        });
      }
      throw new AdminApiError(AdminErrorCode.Forbidden, decision.message);
    }
    request.adminPrincipal = principal;
    return true;
  }

  private async authenticate(authorization: string | undefined): Promise<AdminPrincipal> {
    const token = parseBearerAuthorization(authorization);
    if (token === undefined) {
      throw new AdminApiError(AdminErrorCode.Unauthorized, 'a Bearer access token for the admin API is required', {
        challenge: bearerChallenge({ resourceMetadata: this.settings.resourceMetadataUrl, scope: ADMIN_SCOPE }),
      });
    }
    if (token === 'malformed') throw this.invalidToken('the Authorization header is not "Bearer <token>"');
    let verified: VerifiedAccessToken;
    try {
      verified = await this.verifier.verify(token, { audience: this.settings.audience });
    } catch (error) {
      if (error instanceof TokenRejectedError) throw this.invalidToken(error.message);
      if (error instanceof KeySetUnavailableError) throw new AdminApiError(AdminErrorCode.Unavailable, error.message);
      throw error;
    }
    // As at the MCP edge: a tenant is named by its immutable id too, which revocations name.
    if (verified.tenant !== undefined && verified.tenantId === undefined) throw this.invalidToken('the token names a tenant without its id (tenant_id)');
    const principal: AdminPrincipal = {
      subject: verified.subject,
      clientId: verified.clientId,
      tenant: verified.tenant,
      scopes: verified.scopes,
      roles: verified.roles,
    };
    const current = await this.subjects.currentRights({
      subject: verified.subject,
      ...(verified.tenantId === undefined ? {} : { tenantId: verified.tenantId }),
      ...(verified.issuedAt === undefined ? {} : { issuedAt: verified.issuedAt }),
    });
    if (!current) throw this.invalidToken('the token was revoked, or its user is disabled or no longer exists');
    return withCurrentRights(principal, current);
  }

  private invalidToken(description: string): AdminApiError {
    return new AdminApiError(AdminErrorCode.Unauthorized, description, {
      challenge: bearerChallenge({
        resourceMetadata: this.settings.resourceMetadataUrl,
        scope: ADMIN_SCOPE,
        error: 'invalid_token',
        errorDescription: description,
      }),
    });
  }
}
