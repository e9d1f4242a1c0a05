import { allowedSubset, isScopeAllowed } from '../identity/roles/role-scopes';

/** What decides the scopes of a grant. */
export interface ScopeGrantInput {
  /** The scopes the client asked for (OIDC scopes such as `openid` left out). */
  requested: readonly string[];
  /** Every scope the resource knows (a virtual server: baseline plus its tools' scopes). */
  resourceScopes: readonly string[];
  /** What the user's roles allow (`*`: everything), from `RolesService.allowedScopes`. */
  allowed: readonly string[];
  /** The client's own limit (its registered `scope`), when it has one. */
  clientScope?: readonly string[];
}

/** The scopes granted, and the requested ones that are not (unknown to the resource, or not allowed). */
export interface ScopeGrant {
  granted: string[];
  refused: string[];
}

/**
 * Granted = requested ∩ the resource's scopes ∩ what the user's roles allow ∩ the client's limit.
 * The resource's scopes are matched exactly (a token carries only scopes its audience knows);
 * the roles and the client limit are matched with the hierarchy (`demo` allows `demo:crypto`, S-144).
 */
export function grantScopes(input: ScopeGrantInput): ScopeGrant {
  const requested = [...new Set(input.requested)];
  const offered = requested.filter((scope) => input.resourceScopes.includes(scope));
  const clientLimit = input.clientScope;
  const granted = allowedSubset(input.allowed, offered).filter((scope) => !clientLimit || isScopeAllowed(clientLimit, scope));
  return { granted, refused: requested.filter((scope) => !granted.includes(scope)) };
}
