import { ADMIN_SCOPE, missingScopes } from '@mcp-platform/protocol-mcp';
import { TENANT_ADMIN_ROLE } from '../identity/identity.types';

/** The `roles` claim value of a platform administrator: administers every tenant and the tenants collection. */
export const PLATFORM_ADMIN_ROLE = 'platform-admin';

/** What a route asks of its caller: platform rights (the tenants collection), or rights over the tenant in its path. */
export type AdminAccessLevel = 'platform' | 'tenant';

/** The verified caller of an admin route, from its access token. */
export interface AdminPrincipal {
  /** `sub`: the user id, or the client id of a client_credentials token. */
  subject: string;
  clientId: string | undefined;
  /** The `tenant` claim; absent for a platform administrator's token. */
  tenant: string | undefined;
  scopes: string[];
  /** The `roles` claim (`platform-admin`, `tenant-admin`). */
  roles: string[];
}

/** What the subject of an admin token is now, from the database: its tenant and administrative roles. */
export interface CurrentAdminRights {
  tenant: string | undefined;
  /** `platform-admin` and/or `tenant-admin`, as a token minted now would carry them. */
  roles: string[];
}

/**
 * The principal with only the rights its token claims *and* its user still holds: a token outlives a
 * change of roles by up to its lifetime (10 minutes), but a demoted administrator should lose the
 * admin API at once. A `tenant-admin` claim counts only for the tenant the user belongs to now.
 */
export function withCurrentRights(principal: AdminPrincipal, current: CurrentAdminRights): AdminPrincipal {
  const roles = principal.roles.filter((role) => current.roles.includes(role) && (role !== TENANT_ADMIN_ROLE || principal.tenant === current.tenant));
  return { ...principal, roles };
}

/** The outcome of `decideAdminAccess`. */
export type AdminAccessDecision =
  { allowed: true } | { allowed: false; reason: 'insufficient_scope'; message: string } | { allowed: false; reason: 'forbidden'; message: string };

/**
 * Who may call which admin route. The token must carry the `admin` scope (a scope is what the client
 * was granted; RFC 6750 §3.1 answers its absence with `insufficient_scope`). Then roles decide: a
 * platform admin may do everything; a tenant admin only routes of the tenant its `tenant` claim
 * names (tenant isolation); no one else anything.
 */
export function decideAdminAccess(principal: AdminPrincipal, level: AdminAccessLevel, tenant: string | undefined): AdminAccessDecision {
  if (missingScopes(principal.scopes, [ADMIN_SCOPE]).length > 0) {
    return { allowed: false, reason: 'insufficient_scope', message: `the token lacks the "${ADMIN_SCOPE}" scope` };
  }
  if (principal.roles.includes(PLATFORM_ADMIN_ROLE)) return { allowed: true };
  if (level === 'platform') {
    return { allowed: false, reason: 'forbidden', message: 'only a platform administrator may do this' };
  }
  if (!principal.roles.includes(TENANT_ADMIN_ROLE) || principal.tenant === undefined) {
    return { allowed: false, reason: 'forbidden', message: 'the token carries no administrator role' };
  }
  if (tenant === undefined || principal.tenant !== tenant) {
    return { allowed: false, reason: 'forbidden', message: 'a tenant administrator may administer only its own tenant' };
  }
  return { allowed: true };
}
