import { toolExecutor } from '@mcp-platform/protocol-contracts';

/**
 * The `scopes` of oidc-provider's configuration: the OIDC scopes it handles itself (`openid`,
 * `offline_access`), listed in discovery, while `has()` also answers true for any well-formed scope
 * token. Why: the provider checks a client's registered `scope` metadata (RFC 7591) against this set,
 * and the platform's scopes are dynamic (each virtual server's tools bring their own), so a DCR or
 * CIMD client that registers `scope: "mcp"` would otherwise be refused. Every other use of the set in
 * oidc-provider goes through `Set.prototype.has` and iteration, and sees only the OIDC scopes.
 */
export class ScopeVocabulary extends Set<string> {
  override has(scope: string): boolean {
    return super.has(scope) || toolExecutor.ScopeNameSchema.safeParse(scope).success;
  }
}
