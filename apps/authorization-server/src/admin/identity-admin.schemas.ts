import { z } from 'zod';
import { toolExecutor } from '@mcp-platform/protocol-contracts';
import { TENANT_SLUG_PATTERN } from '@mcp-platform/protocol-contracts';

/**
 * Bodies and answers of the identity routes (tenants, users, roles). The shapes are checked here;
 * the rules (reserved slugs, password policy, known roles, the last platform admin) are the identity
 * services' own, and their refusals come back as 400/404/409.
 */

/** A tenant slug: lowercase letters, digits and `-`, 1..63, starting with a letter or digit. */
export const TenantSlugSchema = z.string().regex(TENANT_SLUG_PATTERN, 'a tenant is 1..63 of a-z 0-9 and "-", starting with a letter or digit');

export const TenantViewSchema = z.object({
  slug: TenantSlugSchema,
  name: z.string(),
  /** A disabled tenant's users cannot sign in. */
  disabled: z.boolean(),
  createdAt: z.iso.datetime(),
});

export const TenantListSchema = z.object({ tenants: z.array(TenantViewSchema) });

export const CreateTenantBodySchema = z.object({
  /** Reserved slugs (`oauth`, `admin`, `health`, `docs`) are refused. */
  slug: TenantSlugSchema,
  name: z.string().min(1).max(256),
});
export type CreateTenantBody = z.output<typeof CreateTenantBodySchema>;

export const UpdateTenantBodySchema = z
  .object({ name: z.string().min(1).max(256).optional(), disabled: z.boolean().optional() })
  .refine((body) => body.name !== undefined || body.disabled !== undefined, { message: 'give name, disabled or both' });
export type UpdateTenantBody = z.output<typeof UpdateTenantBodySchema>;

/** A user's id: the `sub` of their tokens. */
export const UserIdSchema = z.uuid();

/** A role name: like a slug. */
export const RoleNameSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'a role name is 1..63 of a-z 0-9 and "-", starting with a letter or digit');

/** A user as the API shows it: never a password or its hash. */
export const UserViewSchema = z.object({
  id: UserIdSchema,
  /** Lowercase, unique across the platform. */
  username: z.string(),
  tenant: z.string().nullable(),
  platformAdmin: z.boolean(),
  /** Names of the user's roles in their tenant, sorted. */
  roles: z.array(z.string()),
  disabled: z.boolean(),
});

export const UserListSchema = z.object({ users: z.array(UserViewSchema) });

// Upper bound only: the password policy (length, …) is the users service's; this keeps hashing cheap.
const PasswordSchema = z.string().min(1).max(1024);

/**
 * A new user of the tenant. Platform administrator rights are not grantable here: a tenant
 * administrator must not be able to mint one.
 */
export const CreateUserBodySchema = z.object({
  username: z.string().min(1).max(128),
  password: PasswordSchema,
  /** Names of roles of the tenant, e.g. `member`, `tenant-admin`. */
  roles: z.array(RoleNameSchema).max(64).default([]),
});
export type CreateUserBody = z.output<typeof CreateUserBodySchema>;

export const UpdateUserBodySchema = z
  .object({
    password: PasswordSchema.optional(),
    /** Replaces the whole set. */
    roles: z.array(RoleNameSchema).max(64).optional(),
    /** A disabled user cannot sign in, and their tokens stop working at their next refresh. */
    disabled: z.boolean().optional(),
  })
  .refine((body) => body.password !== undefined || body.roles !== undefined || body.disabled !== undefined, { message: 'give password, roles or disabled' });
export type UpdateUserBody = z.output<typeof UpdateUserBodySchema>;

export const RoleViewSchema = z.object({
  name: RoleNameSchema,
  description: z.string().optional(),
  /** Scopes the role lets its users obtain; `*` means every scope. */
  scopes: z.array(z.string()),
  /** What some of those scopes let an application do, shown on the consent page. */
  scopeDescriptions: z.record(z.string(), z.string()).optional(),
  /** `tenant-admin` and `member` exist in every tenant and cannot be deleted. */
  builtIn: z.boolean(),
});

export const RoleListSchema = z.object({ roles: z.array(RoleViewSchema) });

/** A role as written through the API: the path names it. */
export const PutRoleBodySchema = z.object({
  description: z.string().max(1024).optional(),
  /** e.g. `["mcp", "demo"]`: `demo` covers `demo:crypto` (the scope hierarchy); `*` allows every scope. */
  scopes: z.array(toolExecutor.ScopeNameSchema).max(64),
  /**
   * What scopes the role allows let an application do, e.g. `{ "demo:crypto": "Compute hashes of text." }`:
   * the consent page shows these beside the scopes (up to 300 characters each).
   */
  scopeDescriptions: z.record(toolExecutor.ScopeNameSchema, z.string().min(1).max(300)).optional(),
});
export type PutRoleBody = z.output<typeof PutRoleBodySchema>;

export const RolePutResultSchema = z.object({ created: z.boolean(), role: RoleViewSchema });
