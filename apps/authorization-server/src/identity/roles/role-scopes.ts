import { scopeCovers } from '@mcp-platform/protocol-mcp';
import { ANY_SCOPE } from '../identity.types';

/**
 * The union of the roles' scopes, each once, sorted; `['*']` alone when some role allows every scope.
 */
export function unionOfRoleScopes(roleScopes: ReadonlyArray<readonly string[]>): string[] {
  const union = new Set<string>();
  for (const scopes of roleScopes) for (const scope of scopes) union.add(scope);
  if (union.has(ANY_SCOPE)) return [ANY_SCOPE];
  return [...union].sort();
}

/**
 * Whether the allowed scopes (a user's, from `RolesService.allowedScopes`) let them obtain `scope`:
 * `*` allows everything, otherwise an allowed scope must cover it (`demo` covers `demo:crypto`, S-144).
 */
export function isScopeAllowed(allowed: readonly string[], scope: string): boolean {
  return allowed.some((held) => held === ANY_SCOPE || scopeCovers(held, scope));
}

/** The candidates (e.g. requested ∩ the resource's scopes) the allowed scopes let the user obtain, in order. */
export function allowedSubset(allowed: readonly string[], candidates: readonly string[]): string[] {
  return candidates.filter((scope) => isScopeAllowed(allowed, scope));
}
