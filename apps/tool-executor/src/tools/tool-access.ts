import type { Principal } from '@mcp-platform/protocol-contracts';
import { BASELINE_SCOPE, missingScopes } from '@mcp-platform/protocol-mcp';
import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import type { PreparedTool, ServerSnapshot } from '../catalog/catalog.service';

/**
 * Tenant isolation (DESIGN.md §4): a principal reaches only its own tenant's catalog. The broker puts
 * the verified principal in the headers of every request; a request without one is refused too,
 * since every legitimate caller of tools/list and tools/call comes through the broker.
 */
export function assertTenantAccess(principal: Principal | undefined, tenant: string): Principal {
  if (!principal) throw new RpcError(WireErrorCode.Forbidden, 'No principal: tools are served only to callers the broker identified');
  // Same message whether or not the other tenant exists: nothing about it leaks.
  if (principal.tenant !== tenant) throw new RpcError(WireErrorCode.Forbidden, `Principal of tenant ${principal.tenant} may not use tenant ${tenant}`);
  return principal;
}

/** Whether the principal's scopes cover everything the tool requires (S-144: `a` covers `a:b`). */
export function mayUse(principal: Principal, tool: PreparedTool): boolean {
  return missingScopes(principal.scopes, tool.record.requiredScopes).length === 0;
}

/**
 * Whether the principal could use the tool after stepping up (issue 13 item 13): what it holds and
 * what its token says it could obtain (`obtainableScopes`, from the authorization server, which knows
 * the user's roles and the client's limit) cover the tool's scopes. Such a tool is listed, so a client
 * that only calls listed tools can call it and meet the 403 challenge (S-142); a tool the caller could
 * never obtain stays hidden. Anonymous callers obtain nothing.
 */
export function mayObtain(principal: Principal, tool: PreparedTool): boolean {
  if (principal.anonymous || !principal.obtainableScopes) return false;
  return missingScopes([...principal.scopes, ...principal.obtainableScopes], tool.record.requiredScopes).length === 0;
}

/**
 * Refuses a call of a tool whose scopes the principal lacks: `INSUFFICIENT_SCOPE` with every scope
 * the call needs, the baseline included, so the broker can answer one complete 403 challenge
 * (S-142, S-143: all scopes in a single challenge, not one at a time).
 */
export function assertMayCall(principal: Principal, tool: PreparedTool): void {
  const missing = missingScopes(principal.scopes, tool.record.requiredScopes);
  if (missing.length === 0) return;
  const scopes = [BASELINE_SCOPE, ...tool.record.requiredScopes.filter((scope) => scope !== BASELINE_SCOPE)];
  throw new RpcError(WireErrorCode.InsufficientScope, `Tool ${tool.wire.name} requires scope ${missing.join(' ')}`, { scopes });
}

/**
 * The `cacheScope` of a tools/list page (S-248, S-249). `public` only when the list is the same for
 * everyone: the server admits anonymous callers and none of its tools is filtered by scope. Anything
 * else depends on the caller's authorization and must not be shared between tokens.
 */
export function listCacheScope(snapshot: ServerSnapshot): 'public' | 'private' {
  return snapshot.server.public && snapshot.tools.every((tool) => tool.record.requiredScopes.length === 0) ? 'public' : 'private';
}
