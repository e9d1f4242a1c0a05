import { BASELINE_SCOPE } from '@mcp-platform/protocol-mcp';
import { ANY_SCOPE, MEMBER_ROLE, TENANT_ADMIN_ROLE } from '../identity.types';
import type { InitialRole } from '../tenants/tenants.repository';

/**
 * The roles every tenant starts with: `tenant-admin` may obtain every scope and use the admin
 * API for its tenant; `member` may use the tenant's virtual servers (`memberScopes`, default `mcp`),
 * with `memberScopeDescriptions` for the consent page.
 */
export function builtInRoles(memberScopes: string[] = [BASELINE_SCOPE], memberScopeDescriptions: Record<string, string> = {}): InitialRole[] {
  return [
    { name: TENANT_ADMIN_ROLE, description: 'Administers the tenant; may obtain every scope of its servers.', scopes: [ANY_SCOPE] },
    { name: MEMBER_ROLE, description: "Uses the tenant's virtual servers.", scopes: memberScopes, scopeDescriptions: memberScopeDescriptions },
  ];
}
