import type { Principal } from '@mcp-platform/protocol-contracts';
import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';

/**
 * Tenant isolation (DESIGN.md §4), as in the tool executor: a principal reaches only its own
 * tenant's resources and prompts. The broker puts the verified principal in every request's headers;
 * a request without one is refused too.
 */
export function assertTenantAccess(principal: Principal | undefined, tenant: string): Principal {
  if (!principal) throw new RpcError(WireErrorCode.Forbidden, 'No principal: resources are served only to callers the broker identified');
  // Same message whether or not the other tenant exists: nothing about it leaks.
  if (principal.tenant !== tenant) throw new RpcError(WireErrorCode.Forbidden, `Principal of tenant ${principal.tenant} may not use tenant ${tenant}`);
  return principal;
}

/** How long a client may reuse a list page or a read (S-247: a freshness hint, not a promise). */
export const LIST_TTL_MS = 60_000;
/** Reads change more often than lists (subscriptions announce updates); keep them fresher. */
export const READ_TTL_MS = 30_000;

/**
 * The `cacheScope` of a list or a read (S-214, S-248). Resources and prompts are not filtered by the
 * caller's scopes, so an answer is the same for everyone who may ask: `public` when the server admits
 * anonymous callers, `private` otherwise (only those holding a token of this server may reuse it).
 */
export function cacheScopeOf(isPublicServer: boolean): 'public' | 'private' {
  return isPublicServer ? 'public' : 'private';
}
