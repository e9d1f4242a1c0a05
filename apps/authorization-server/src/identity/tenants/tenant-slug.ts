import { RESERVED_TENANT_SLUGS, TENANT_SLUG_PATTERN } from '@mcp-platform/protocol-contracts';
import { IdentityError, IdentityErrorCode } from '../identity.errors';

export { RESERVED_TENANT_SLUGS };

/** Throws `Invalid` for a slug that is malformed or reserved. */
export function assertTenantSlug(slug: string): void {
  if (!TENANT_SLUG_PATTERN.test(slug)) {
    throw new IdentityError(IdentityErrorCode.Invalid, 'a tenant slug is 1..63 of a-z 0-9 and "-", starting with a letter or digit');
  }
  if (RESERVED_TENANT_SLUGS.includes(slug)) {
    throw new IdentityError(IdentityErrorCode.Invalid, `"${slug}" is reserved (reserved: ${RESERVED_TENANT_SLUGS.join(', ')})`);
  }
}
