import { IdentityError, IdentityErrorCode } from '../identity/identity.errors';

/** A tenant slug is a path segment of MCP URLs. */
export const TENANT_SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

/** First path segments the platform's own endpoints use on a shared origin, so no tenant may take them. */
export const RESERVED_TENANT_SLUGS: readonly string[] = ['oauth', 'admin', 'health', 'docs'];

/** Throws `Invalid` for a slug that is malformed or reserved. */
export function assertTenantSlug(slug: string): void {
  if (!TENANT_SLUG.test(slug)) {
    throw new IdentityError(IdentityErrorCode.Invalid, 'a tenant slug is 1..63 of a-z 0-9 and "-", starting with a letter or digit');
  }
  if (RESERVED_TENANT_SLUGS.includes(slug)) {
    throw new IdentityError(IdentityErrorCode.Invalid, `"${slug}" is reserved (reserved: ${RESERVED_TENANT_SLUGS.join(', ')})`);
  }
}
