/** A tenant as the rest of the platform sees it (its slug is the first segment of its MCP URLs). */
export interface Tenant {
  /** uuid; immutable (the `tenant_id` claim of its tokens), unlike the slug, which a new tenant may take again. */
  id: string;
  slug: string;
  name: string;
  disabled: boolean;
  createdAt: Date;
}

/** A user who can sign in; never carries the password hash. */
export interface UserAccount {
  /** uuid; the `sub` of the user's tokens. */
  id: string;
  /** Lowercase; unique across the platform (sign-in does not ask for a tenant). */
  username: string;
  /** The tenant's slug; `null` for a platform administrator who belongs to no tenant. */
  tenant: string | null;
  platformAdmin: boolean;
  /** Names of the user's roles in their tenant, sorted. */
  roles: string[];
  disabled: boolean;
}

/** A named set of scopes within one tenant; users get scopes only through roles. */
export interface Role {
  name: string;
  description?: string;
  /** Scopes this role lets its users obtain; `*` means every scope. */
  scopes: string[];
  /**
   * What some of those scopes let an application do, in the administrator's words (shown on the consent
   * page); keys are scopes the role allows.
   */
  scopeDescriptions?: Record<string, string>;
  /** `tenant-admin` and `member` exist in every tenant and cannot be deleted. */
  builtIn: boolean;
}

/** Built-in role: administers the tenant (admin API) and may obtain every scope of its servers. */
export const TENANT_ADMIN_ROLE = 'tenant-admin';
/** Built-in role given to ordinary users; its scopes are the tenant's to choose. */
export const MEMBER_ROLE = 'member';
/** The role scope that allows every scope. */
export const ANY_SCOPE = '*';
/** Role names that every tenant has. */
export const BUILT_IN_ROLES: readonly string[] = [TENANT_ADMIN_ROLE, MEMBER_ROLE];
