import { Injectable } from '@nestjs/common';
import { ANY_SCOPE, type UserAccount } from '../identity/identity.types';
import { RolesService } from '../identity/roles/roles.service';
import { type ResourceDescription, ResourceServersService, type ResourceTarget } from './resource-servers.service';
import { grantScopes, type ScopeGrant } from './scope-grant';

/** The platform's role names in admin-API tokens (`roles` claim). */
export const PLATFORM_ADMIN_ROLE_CLAIM = 'platform-admin';
export const TENANT_ADMIN_ROLE_CLAIM = 'tenant-admin';

/** What a user may be granted for one resource: the scopes, or why nothing. */
export type GrantDecision = ({ ok: true; resource: ResourceDescription } & ScopeGrant) | { ok: false; reason: string };

/**
 * Who may obtain tokens for what: a virtual server only for users of its own tenant, with the
 * scopes their roles allow; the admin API only for platform administrators and tenant administrators.
 */
@Injectable()
export class AuthorizationPolicy {
  constructor(
    private readonly resources: ResourceServersService,
    private readonly roles: RolesService,
  ) {}

  /** Why this user may not sign in for the resource (shown on the sign-in page), or `undefined`. */
  signInProblem(user: UserAccount, target: ResourceTarget): string | undefined {
    if (target.kind === 'admin') {
      return this.adminRoles(user).length > 0 ? undefined : `${user.username} is not an administrator; only administrators can use the administration API.`;
    }
    if (user.tenant === target.tenant) return undefined;
    const home = user.tenant === null ? 'no tenant (a platform administrator)' : `tenant "${user.tenant}"`;
    return `This server belongs to tenant "${target.tenant}", and ${user.username} is a user of ${home}. Sign in with an account of tenant "${target.tenant}".`;
  }

  /** The scopes to grant the user for the resource, given what the client asked for and may obtain at most. */
  async decide(user: UserAccount, resource: string, requested: readonly string[], clientScope?: readonly string[]): Promise<GrantDecision> {
    const description = await this.resources.describe(resource);
    if (!description) return { ok: false, reason: `${resource} is not a resource of this authorization server` };
    const problem = this.signInProblem(user, description.target);
    if (problem) return { ok: false, reason: problem };
    const allowed = description.target.kind === 'admin' ? description.scopes : await this.roles.allowedScopes(user, description.target.tenant);
    const grant = grantScopes({ requested, resourceScopes: description.scopes, allowed, ...(clientScope ? { clientScope } : {}) });
    if (grant.granted.length === 0) {
      return { ok: false, reason: `none of the requested scopes (${requested.join(' ') || 'none'}) may be granted to ${user.username} for ${resource}` };
    }
    return { ok: true, resource: description, ...grant };
  }

  /**
   * What a caller could hold for an MCP server by asking for it (the `obtainable_scope` claim): the
   * broker lists the tools these unlock, so a client sees the tools a step-up would get it and meets the
   * 403 challenge when it calls one (issue 13 item 13). For a user: what a grant asking for every scope
   * of the server would get (their roles, the client's limit `clientScope`). Without a user (a
   * `client_credentials` token): the server's scopes within `clientScope`, the client's allowed scope.
   */
  async obtainableScopes(description: ResourceDescription, user: UserAccount | undefined, clientScope?: readonly string[]): Promise<string[]> {
    const target = description.target;
    if (target.kind !== 'mcp') return [];
    let allowed: readonly string[] = [ANY_SCOPE];
    if (user) allowed = this.signInProblem(user, target) ? [] : await this.roles.allowedScopes(user, target.tenant);
    return grantScopes({ requested: description.scopes, resourceScopes: description.scopes, allowed, ...(clientScope ? { clientScope } : {}) }).granted;
  }

  /** The `roles` claim of the user's admin-API tokens. */
  adminRoles(user: UserAccount): string[] {
    if (user.disabled) return [];
    const roles: string[] = [];
    if (user.platformAdmin) roles.push(PLATFORM_ADMIN_ROLE_CLAIM);
    if (user.tenant !== null && this.roles.isTenantAdmin(user, user.tenant)) roles.push(TENANT_ADMIN_ROLE_CLAIM);
    return roles;
  }
}
