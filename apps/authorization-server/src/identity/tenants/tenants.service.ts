import { Injectable, Logger } from '@nestjs/common';
import { authorizationServer, resourceStore, taskScheduler, toolExecutor, WireErrorCode } from '@mcp-platform/protocol-contracts';
import { isRpcError, MessageBus } from '@mcp-platform/shared-messaging';
import { AccessRevocations } from '../../revocations/access-revocations.service';
import { IdentityError, IdentityErrorCode } from '../identity.errors';
import type { Tenant } from '../identity.types';
import { builtInRoles } from '../roles/built-in-roles';
import { assertTenantSlug } from './tenant-slug';
import { TenantsRepository } from './tenants.repository';

export type { Tenant } from '../identity.types';

const MAX_NAME_LENGTH = 256;

/**
 * Tenants: who exists, and the tool executor's catalog kept in step (a tenant is created there too,
 * disabled there too, and its catalog is dropped with it, as are its resources, prompts and tasks). A new tenant gets the built-in roles
 * `tenant-admin` and `member`. Disabling or deleting a tenant stops every way in (issue 13): its
 * tokens are revoked (`AccessRevocations`), its servers refuse every caller (the executor's flag),
 * and every broker replica hears it (`tenantStateChanged`) and closes what it holds open for it.
 */
@Injectable()
export class TenantsService {
  private readonly logger = new Logger(TenantsService.name);

  constructor(
    private readonly repository: TenantsRepository,
    private readonly bus: MessageBus,
    private readonly revocations: AccessRevocations,
  ) {}

  list(): Promise<Tenant[]> {
    return this.repository.list();
  }

  /** The tenant, or `undefined` when it does not exist. */
  find(slug: string): Promise<Tenant | undefined> {
    return this.repository.find(slug);
  }

  /** The tenant; `NotFound` when it does not exist. */
  async get(slug: string): Promise<Tenant> {
    const tenant = await this.repository.find(slug);
    if (!tenant) throw notFound(slug);
    return tenant;
  }

  /**
   * Creates the tenant, its built-in roles and its (empty) catalog in the tool executor. `Invalid` for
   * a malformed or reserved slug, `Conflict` when it exists, `Unavailable` (and nothing kept) when the
   * executor does not take it.
   */
  async create(input: { slug: string; name: string }): Promise<Tenant> {
    assertTenantSlug(input.slug);
    const name = requireName(input.name);
    if (await this.repository.find(input.slug)) throw new IdentityError(IdentityErrorCode.Conflict, `tenant ${input.slug} exists`);
    const created = await this.repository.insertWithRoles({ slug: input.slug, name }, builtInRoles());
    if (!created) throw new IdentityError(IdentityErrorCode.Conflict, `tenant ${input.slug} exists`);
    try {
      await this.bus.request(toolExecutor.putTenant, { tenant: input.slug });
    } catch (error) {
      // Without its catalog the tenant would be half made: undo, so a retry starts clean.
      await this.repository.delete(input.slug);
      throw unavailable(`the tool executor did not create the catalog of ${input.slug}`, error);
    }
    this.logger.log(`created tenant ${input.slug}`);
    const tenant = await this.get(input.slug);
    // A broker may still refuse the slug after a tenant of that name was deleted: this one is new.
    this.bus.emit(authorizationServer.tenantStateChanged, { tenant: tenant.slug, tenantId: tenant.id, state: 'enabled' });
    return tenant;
  }

  /**
   * Renames, disables or enables the tenant. Disabling: its tokens issued until now are revoked first
   * (harmless should the rest fail), then the executor marks it disabled (its servers refuse every
   * caller, anonymous ones too), then it is stored, and its tokens are revoked again (those issued
   * meanwhile); nobody of it signs in or gets a token any more.
   * `Unavailable` (the tenant unchanged here) when the executor does not take it.
   */
  async update(slug: string, changes: { name?: string; disabled?: boolean }): Promise<Tenant> {
    const name = changes.name === undefined ? undefined : requireName(changes.name);
    const current = await this.get(slug);
    const stateChanges = changes.disabled !== undefined && changes.disabled !== current.disabled;
    if (changes.disabled === true) await this.revocations.revokeTenant(current.id, slug);
    if (stateChanges) {
      try {
        await this.bus.request(toolExecutor.putTenant, { tenant: slug, disabled: changes.disabled });
      } catch (error) {
        throw unavailable(`the tool executor did not ${changes.disabled ? 'disable' : 'enable'} the catalog of ${slug}`, error);
      }
    }
    const tenant = await this.repository.update(slug, {
      ...(name === undefined ? {} : { name }),
      ...(changes.disabled === undefined ? {} : { disabled: changes.disabled }),
    });
    if (!tenant) throw notFound(slug);
    // Again once stored: a token issued while the executor was asked (the tenant still enabled here) is later than the first.
    if (changes.disabled === true) await this.revocations.revokeTenant(current.id, slug);
    if (stateChanges) {
      this.bus.emit(authorizationServer.tenantStateChanged, { tenant: slug, tenantId: tenant.id, state: tenant.disabled ? 'disabled' : 'enabled' });
      this.logger.log(`${tenant.disabled ? 'disabled' : 'enabled'} tenant ${slug}`);
    }
    return tenant;
  }

  /**
   * Revokes the tenant's tokens, deletes its catalog in the tool executor (absent is fine), its
   * resources, templates and prompts in the resource store and its tasks in the task scheduler, then
   * the tenant with its users and roles. Those services keep their rows by slug: a tenant created later
   * with the same slug must find none of them. `NotFound` when unknown; `Unavailable` (the tenant still
   * here, so a retry finishes the job) when one of them fails.
   */
  async delete(slug: string): Promise<void> {
    const tenant = await this.get(slug);
    // Its tokens name its id: revoked first, so none works on a tenant created later with the same slug.
    await this.revocations.revokeTenant(tenant.id, slug);
    try {
      await this.bus.request(toolExecutor.deleteTenant, { tenant: slug });
    } catch (error) {
      if (!(isRpcError(error) && error.code === WireErrorCode.NotFound)) throw unavailable(`the tool executor did not delete the catalog of ${slug}`, error);
    }
    try {
      await this.bus.request(resourceStore.deleteTenantContent, { tenant: slug });
    } catch (error) {
      throw unavailable(`the resource store did not delete the resources and prompts of ${slug}`, error);
    }
    try {
      await this.bus.request(taskScheduler.deleteTenantTasks, { tenant: slug });
    } catch (error) {
      throw unavailable(`the task scheduler did not delete the tasks of ${slug}`, error);
    }
    if (!(await this.repository.delete(slug))) throw notFound(slug);
    // Again once deleted: a token issued while the services above were asked is later than the first.
    await this.revocations.revokeTenant(tenant.id, slug);
    this.bus.emit(authorizationServer.tenantStateChanged, { tenant: slug, tenantId: tenant.id, state: 'deleted' });
    this.logger.log(`deleted tenant ${slug}`);
  }
}

function requireName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_NAME_LENGTH)
    throw new IdentityError(IdentityErrorCode.Invalid, `a tenant name is 1..${MAX_NAME_LENGTH} characters`);
  return trimmed;
}

function notFound(slug: string): IdentityError {
  return new IdentityError(IdentityErrorCode.NotFound, `no tenant ${slug}`);
}

function unavailable(message: string, cause: unknown): IdentityError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new IdentityError(IdentityErrorCode.Unavailable, `${message}: ${reason}`);
}
