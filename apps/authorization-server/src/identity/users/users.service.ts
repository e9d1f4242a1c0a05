import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { IdSource } from '@mcp-platform/shared-clock';
import { AccessRevocations } from '../../revocations/access-revocations.service';
import { IdentityError, IdentityErrorCode } from '../identity.errors';
import type { UserAccount } from '../identity.types';
import { RolesRepository } from '../roles/roles.repository';
import { TenantsRepository } from '../tenants/tenants.repository';
import { PasswordHasher } from './password-hasher';
import { assertPasswordPolicy, assertUsername, normalizeUsername } from './password-policy';
import { type StoredUser, UsersRepository } from './users.repository';

export type { UserAccount } from '../identity.types';

/** What an administrator gives for a new user. */
export interface NewUserInput {
  username: string;
  password: string;
  /** Names of roles of the user's tenant (none for a user without tenant). */
  roles?: string[];
  platformAdmin?: boolean;
}

/** What an administrator may change; `roles` replaces the whole set. */
export interface UserUpdateInput {
  password?: string;
  roles?: string[];
  disabled?: boolean;
}

/**
 * Users: sign-in and administration. The username is unique across the platform (sign-in asks for no
 * tenant) and case-insensitive. `tenant` arguments scope every administrative call: a slug, or `null`
 * for the platform administrators who belong to no tenant.
 */
@Injectable()
export class UsersService {
  /** A hash of a random password, verified when there is no real one, so timing does not tell. */
  private dummyHash?: Promise<string>;

  constructor(
    private readonly repository: UsersRepository,
    private readonly tenants: TenantsRepository,
    private readonly roles: RolesRepository,
    private readonly hasher: PasswordHasher,
    private readonly revocations: AccessRevocations,
    private readonly ids: IdSource,
  ) {}

  /**
   * The account when the password is right and the user (and their tenant) is enabled; `undefined`
   * otherwise. An unknown or disabled user costs one hash verification too, so response time does not
   * reveal which usernames exist.
   */
  async verifyPassword(username: string, password: string): Promise<UserAccount | undefined> {
    const stored = await this.repository.findByUsername(normalizeUsername(username));
    if (!stored || !canSignIn(stored)) {
      await this.hasher.verify(await this.getDummyHash(), password);
      return undefined;
    }
    return (await this.hasher.verify(stored.passwordHash, password)) ? stored.account : undefined;
  }

  /**
   * An opaque stamp of the account named `username` and its current password (`undefined` when there is
   * no such account): it changes when the password does, or when the account is deleted and created again
   * under the same name. The sign-in throttle's known-browser proof is bound to it, so a browser known to
   * an account is forgotten once its password changes.
   */
  async credentialStamp(username: string): Promise<string | undefined> {
    const stored = await this.repository.findByUsername(normalizeUsername(username));
    return stored && createHash('sha256').update(`${stored.account.id}\u0000${stored.passwordHash}`).digest('base64url');
  }

  /** The account by id whatever its state (oidc-provider's `findAccount` decides what a disabled one may do). */
  async findById(id: string): Promise<UserAccount | undefined> {
    return (await this.repository.findById(id))?.account;
  }

  /** Whether the account may still sign in and use its tokens (enabled, and its tenant enabled). */
  async isActive(id: string): Promise<boolean> {
    const stored = await this.repository.findById(id);
    return stored !== undefined && canSignIn(stored);
  }

  /** The tenant's users by username (`null`: users without tenant); `NotFound` for an unknown tenant. */
  async list(tenant: string | null): Promise<UserAccount[]> {
    await this.requireTenant(tenant);
    return (await this.repository.list(tenant)).map((user) => user.account);
  }

  /** One user of the tenant; `NotFound` when unknown or in another tenant. */
  async get(tenant: string | null, id: string): Promise<UserAccount> {
    await this.requireTenant(tenant);
    const stored = await this.repository.get(tenant, id);
    if (!stored) throw notFound(tenant, id);
    return stored.account;
  }

  /**
   * Creates a user. `Invalid` for a bad username or password (12+ characters), unknown roles, or a
   * user without tenant who is not a platform administrator; `Conflict` when the username is taken.
   */
  async create(tenant: string | null, input: NewUserInput): Promise<UserAccount> {
    await this.requireTenant(tenant);
    const username = normalizeUsername(input.username);
    assertUsername(username);
    assertPasswordPolicy(input.password);
    const platformAdmin = input.platformAdmin ?? false;
    if (tenant === null && !platformAdmin) throw new IdentityError(IdentityErrorCode.Invalid, 'a user without tenant must be a platform admin');
    const roles = await this.checkRoles(tenant, input.roles ?? []);
    const id = this.ids.newId();
    const inserted = await this.repository.insert({ id, username, passwordHash: await this.hasher.hash(input.password), tenant, platformAdmin, roles });
    if (!inserted) throw new IdentityError(IdentityErrorCode.Conflict, `username ${username} is taken`);
    return this.get(tenant, id);
  }

  /**
   * Changes the password, roles or disabled state. `Conflict` when it would disable the last enabled
   * platform administrator. Disabling revokes the user's access tokens first (resource servers refuse
   * them at once; refresh tokens already stop at the account check), and again once the change is
   * stored: a token issued meanwhile (a refresh while the new password was being hashed) is later than
   * the first revocation, not the second.
   */
  async update(tenant: string | null, id: string, changes: UserUpdateInput): Promise<UserAccount> {
    const current = await this.get(tenant, id);
    if (changes.password !== undefined) assertPasswordPolicy(changes.password);
    const roles = changes.roles === undefined ? undefined : await this.checkRoles(tenant, changes.roles);
    if (changes.disabled === true && current.platformAdmin && !current.disabled) await this.requireAnotherPlatformAdmin(id);
    if (changes.disabled === true) await this.revocations.revokeSubject(id);
    const updated = await this.repository.update(tenant, id, {
      ...(changes.password === undefined ? {} : { passwordHash: await this.hasher.hash(changes.password) }),
      ...(changes.disabled === undefined ? {} : { disabled: changes.disabled }),
      ...(roles === undefined ? {} : { roles }),
    });
    if (!updated) throw notFound(tenant, id);
    if (changes.disabled === true) await this.revocations.revokeSubject(id);
    return updated.account;
  }

  /**
   * Deletes the user, revoking their access tokens first and again once deleted (see `update`).
   * `Conflict` when it is the last enabled platform administrator.
   */
  async delete(tenant: string | null, id: string): Promise<void> {
    const current = await this.get(tenant, id);
    if (current.platformAdmin && !current.disabled) await this.requireAnotherPlatformAdmin(id);
    await this.revocations.revokeSubject(id);
    if (!(await this.repository.delete(tenant, id))) throw notFound(tenant, id);
    await this.revocations.revokeSubject(id);
  }

  private async requireTenant(tenant: string | null): Promise<void> {
    if (tenant !== null && !(await this.tenants.find(tenant))) throw new IdentityError(IdentityErrorCode.NotFound, `no tenant ${tenant}`);
  }

  /** The distinct role names, sorted, after checking each exists in the tenant. */
  private async checkRoles(tenant: string | null, names: string[]): Promise<string[]> {
    const wanted = [...new Set(names)].sort();
    if (wanted.length === 0) return wanted;
    if (tenant === null) throw new IdentityError(IdentityErrorCode.Invalid, 'a user without tenant has no roles');
    const found = new Set((await this.roles.findByNames(tenant, wanted)).map((role) => role.name));
    const unknown = wanted.filter((name) => !found.has(name));
    if (unknown.length) throw new IdentityError(IdentityErrorCode.Invalid, `no such role in tenant ${tenant}: ${unknown.join(', ')}`);
    return wanted;
  }

  private async requireAnotherPlatformAdmin(id: string): Promise<void> {
    if (!(await this.repository.anotherActivePlatformAdminExists(id))) {
      throw new IdentityError(IdentityErrorCode.Conflict, 'the last enabled platform admin cannot be disabled or deleted');
    }
  }

  private getDummyHash(): Promise<string> {
    this.dummyHash ??= this.hasher.hash(randomBytes(24).toString('base64url'));
    return this.dummyHash;
  }
}

function canSignIn(stored: StoredUser): boolean {
  return !stored.account.disabled && !stored.tenantDisabled;
}

function notFound(tenant: string | null, id: string): IdentityError {
  return new IdentityError(IdentityErrorCode.NotFound, tenant === null ? `no platform user ${id}` : `no user ${id} in tenant ${tenant}`);
}
