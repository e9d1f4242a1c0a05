/**
 * A tenant slug is the first path segment of its MCP URLs (`/<tenant>/<server>/mcp`): 1..63 of
 * `a-z 0-9 -`, starting with a letter or digit.
 */
export const TENANT_SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

/**
 * First path segments the platform's own endpoints use on a shared origin (the embedded host serves
 * `/oauth`, `/admin`, `/health` and `/docs` beside `/<tenant>/<server>/mcp`), so no tenant may take
 * them. The authorization server refuses them when a tenant is created, the tool executor when its
 * catalog is.
 */
export const RESERVED_TENANT_SLUGS: readonly string[] = ['oauth', 'admin', 'health', 'docs'];
