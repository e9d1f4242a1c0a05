/**
 * OAuth scopes as the platform uses them (S-135, S-136, S-143, S-144). A scope is a token of
 * RFC 6749 §3.3; `a:b:c` is read as a hierarchy, where a granted `a` or `a:b` covers `a:b:c`.
 */

/**
 * The one scope every token for a protected virtual server carries: "use this server and its tools
 * that need nothing more". The broker's 401 challenge and Protected Resource Metadata name only it
 * (S-136); tool-specific scopes are asked for by a 403 step-up challenge (S-142).
 */
export const BASELINE_SCOPE = 'mcp';

/**
 * The `_meta` key of a listed tool that requires scopes: the scopes (besides the baseline) a call needs.
 * A caller whose token lacks them still sees the tool when it could obtain them by stepping up (issue 13
 * item 13), and its call meets the 403 `insufficient_scope` challenge naming them (S-142). The prefix is
 * the platform's own, reverse-DNS, second label not `mcp` nor `modelcontextprotocol` (S-26).
 */
export const REQUIRED_SCOPES_META_KEY = 'io.mcp-platform/requiredScopes';

/** The scope of the admin API (REST); who may use it is decided by the caller's roles. */
export const ADMIN_SCOPE = 'admin';

/** Splits a space-separated `scope` value into its distinct scopes, in order. */
export function parseScopes(value: string | undefined | null): string[] {
  if (!value) return [];
  return [...new Set(value.split(' ').filter((scope) => scope.length > 0))];
}

/** Joins scopes into a `scope` value, each once. */
export function formatScopes(scopes: Iterable<string>): string {
  return [...new Set(scopes)].join(' ');
}

/** Whether a granted scope covers a required one: equal, or a broader prefix of it (S-144). */
export function scopeCovers(granted: string, required: string): boolean {
  return granted === required || required.startsWith(`${granted}:`);
}

/** The required scopes that none of the granted scopes covers; empty means the caller may proceed. */
export function missingScopes(granted: readonly string[], required: readonly string[]): string[] {
  return required.filter((scope) => !granted.some((held) => scopeCovers(held, scope)));
}
