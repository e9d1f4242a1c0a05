import { Logger } from '@nestjs/common';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  authorizationServer,
  type EventContract,
  resourceStore,
  type RpcContract,
  taskScheduler,
  toolExecutor,
  WireErrorCode,
} from '@mcp-platform/protocol-contracts';
import { type MessageBus, RpcError } from '@mcp-platform/shared-messaging';
import type { AccessRevocations } from '../../revocations/access-revocations.service';
import { IdentityErrorCode } from '../identity.errors';
import type { Tenant } from '../identity.types';
import { RESERVED_TENANT_SLUGS } from './tenant-slug';
import type { InitialRole, TenantsRepository } from './tenants.repository';
import { TenantsService } from './tenants.service';

class FakeTenants {
  rows = new Map<string, Tenant & { roles: string[] }>();
  async list() {
    return [...this.rows.values()];
  }
  async find(slug: string) {
    return this.rows.get(slug);
  }
  async insertWithRoles(tenant: { slug: string; name: string }, roles: InitialRole[]) {
    if (this.rows.has(tenant.slug)) return false;
    this.rows.set(tenant.slug, {
      ...tenant,
      id: `id-of-${tenant.slug}-${this.rows.size}`,
      disabled: false,
      createdAt: new Date(0),
      roles: roles.map((role) => role.name),
    });
    return true;
  }
  async update(slug: string, changes: { name?: string; disabled?: boolean }) {
    const row = this.rows.get(slug);
    if (!row) return undefined;
    Object.assign(row, changes);
    return row;
  }
  async delete(slug: string) {
    return this.rows.delete(slug);
  }
}

/** Records executor calls (answering each with `answer`: a value, or an error to throw) and events. */
function fakeBus(answer: (contract: RpcContract) => unknown) {
  const calls: Array<{ subject: string; payload: unknown }> = [];
  const events: Array<{ subject: string; payload: unknown }> = [];
  const bus = {
    request: async (contract: RpcContract, payload: unknown) => {
      calls.push({ subject: contract.subject, payload });
      const result = answer(contract);
      if (result instanceof Error) throw result;
      return result;
    },
    emit: (contract: EventContract, payload: unknown) => {
      events.push({ subject: contract.subject, payload });
    },
  } as unknown as MessageBus;
  return { bus, calls, events };
}

function setup(answer: (contract: RpcContract) => unknown = () => ({ created: true })) {
  const repository = new FakeTenants();
  const { bus, calls, events } = fakeBus(answer);
  const revoked: Array<{ tenantId: string; tenant: string }> = [];
  /** What the tenants table said of the tenant at each revocation. */
  const storedAtRevocation: Array<'enabled' | 'disabled' | 'deleted'> = [];
  const revocations = {
    revokeTenant: async (tenantId: string, tenant: string) => {
      if (!revoked.some((revocation) => revocation.tenantId === tenantId)) revoked.push({ tenantId, tenant });
      const row = repository.rows.get(tenant);
      storedAtRevocation.push(row === undefined ? 'deleted' : row.disabled ? 'disabled' : 'enabled');
    },
  } as unknown as AccessRevocations;
  return { repository, calls, events, revoked, storedAtRevocation, service: new TenantsService(repository as unknown as TenantsRepository, bus, revocations) };
}

describe(TenantsService, () => {
  beforeAll(() => Logger.overrideLogger(false));

  describe('create', () => {
    it('creates the tenant with its built-in roles and its catalog in the executor', async () => {
      const { service, repository, calls } = setup();
      await expect(service.create({ slug: 'acme', name: ' Acme Inc ' })).resolves.toMatchObject({ slug: 'acme', name: 'Acme Inc', disabled: false });
      expect(repository.rows.get('acme')?.roles).toEqual(['tenant-admin', 'member']);
      expect(calls).toEqual([{ subject: toolExecutor.putTenant.subject, payload: { tenant: 'acme' } }]);
    });

    it.each(RESERVED_TENANT_SLUGS)('refuses the reserved slug %s', async (slug) => {
      const { service, calls } = setup();
      await expect(service.create({ slug, name: 'x' })).rejects.toMatchObject({
        code: IdentityErrorCode.Invalid,
        message: expect.stringContaining('reserved'),
      });
      expect(calls).toEqual([]);
    });

    it('refuses malformed slugs and an existing one', async () => {
      const { service } = setup();
      await expect(service.create({ slug: 'Acme', name: 'x' })).rejects.toMatchObject({ code: IdentityErrorCode.Invalid });
      await expect(service.create({ slug: '-acme', name: 'x' })).rejects.toMatchObject({ code: IdentityErrorCode.Invalid });
      await service.create({ slug: 'acme', name: 'Acme' });
      await expect(service.create({ slug: 'acme', name: 'Acme' })).rejects.toMatchObject({ code: IdentityErrorCode.Conflict });
    });

    it('keeps nothing when the executor does not create the catalog', async () => {
      const { service, repository } = setup(() => new RpcError(WireErrorCode.Unavailable, 'no responders'));
      await expect(service.create({ slug: 'acme', name: 'Acme' })).rejects.toMatchObject({ code: IdentityErrorCode.Unavailable });
      expect(repository.rows.has('acme')).toBe(false);
    });
  });

  describe('delete', () => {
    it('revokes the tenant’s tokens, deletes the catalog, the resources and prompts, the tasks, then the tenant, tells the brokers, and tolerates a catalog already gone', async () => {
      const { service, repository, calls, events, revoked } = setup((contract) =>
        contract.subject === toolExecutor.deleteTenant.subject ? new RpcError(WireErrorCode.NotFound, 'no tenant') : { created: true },
      );
      const { id } = await service.create({ slug: 'acme', name: 'Acme' });
      await expect(service.delete('acme')).resolves.toBeUndefined();
      expect(repository.rows.has('acme')).toBe(false);
      expect(revoked).toEqual([{ tenantId: id, tenant: 'acme' }]);
      expect(calls).toEqual([
        { subject: toolExecutor.putTenant.subject, payload: { tenant: 'acme' } },
        { subject: toolExecutor.deleteTenant.subject, payload: { tenant: 'acme' } },
        { subject: resourceStore.deleteTenantContent.subject, payload: { tenant: 'acme' } },
        { subject: taskScheduler.deleteTenantTasks.subject, payload: { tenant: 'acme' } },
      ]);
      expect(events.at(-1)).toEqual({ subject: authorizationServer.tenantStateChanged.subject, payload: { tenant: 'acme', tenantId: id, state: 'deleted' } });
    });

    it.each([
      ['the executor fails otherwise', toolExecutor.deleteTenant.subject],
      ['the resource store fails', resourceStore.deleteTenantContent.subject],
      ['the task scheduler fails', taskScheduler.deleteTenantTasks.subject],
    ])('keeps the tenant when %s, so a retry finishes the job', async (_case, failing) => {
      const { service, repository } = setup((contract) => (contract.subject === failing ? new RpcError(WireErrorCode.Timeout, 'late') : { created: true }));
      await service.create({ slug: 'acme', name: 'Acme' });
      await expect(service.delete('acme')).rejects.toMatchObject({ code: IdentityErrorCode.Unavailable });
      expect(repository.rows.has('acme')).toBe(true);
    });

    it('answers NotFound for an unknown tenant without asking the executor', async () => {
      const { service, calls } = setup();
      await expect(service.delete('ghost')).rejects.toMatchObject({ code: IdentityErrorCode.NotFound });
      expect(calls).toEqual([]);
    });
  });

  describe('update', () => {
    it('renames and disables, and answers NotFound for an unknown tenant', async () => {
      const { service } = setup();
      await service.create({ slug: 'acme', name: 'Acme' });
      await expect(service.update('acme', { name: 'ACME', disabled: true })).resolves.toMatchObject({ name: 'ACME', disabled: true });
      await expect(service.update('ghost', { disabled: true })).rejects.toMatchObject({ code: IdentityErrorCode.NotFound });
      await expect(service.update('acme', { name: '  ' })).rejects.toMatchObject({ code: IdentityErrorCode.Invalid });
    });

    it('disabling revokes the tenant’s tokens by its id, disables its catalog and tells the brokers; enabling undoes the last two', async () => {
      const { service, calls, events, revoked } = setup();
      const { id } = await service.create({ slug: 'acme', name: 'Acme' });
      await service.update('acme', { disabled: true });
      expect(revoked).toEqual([{ tenantId: id, tenant: 'acme' }]);
      expect(calls.at(-1)).toEqual({ subject: toolExecutor.putTenant.subject, payload: { tenant: 'acme', disabled: true } });
      expect(events.at(-1)).toEqual({ subject: authorizationServer.tenantStateChanged.subject, payload: { tenant: 'acme', tenantId: id, state: 'disabled' } });
      await service.update('acme', { disabled: false });
      expect(revoked).toHaveLength(1);
      expect(calls.at(-1)).toEqual({ subject: toolExecutor.putTenant.subject, payload: { tenant: 'acme', disabled: false } });
      expect(events.at(-1)).toMatchObject({ payload: { state: 'enabled' } });
    });

    it('revokes the tokens again once the tenant is stored disabled or deleted, so those issued meanwhile are refused too', async () => {
      const { service, storedAtRevocation } = setup();
      await service.create({ slug: 'acme', name: 'Acme' });
      await service.update('acme', { disabled: true });
      expect(storedAtRevocation).toEqual(['enabled', 'disabled']);
      await service.delete('acme');
      expect(storedAtRevocation).toEqual(['enabled', 'disabled', 'disabled', 'deleted']);
    });

    it('keeps the tenant enabled when the executor does not take the change', async () => {
      const { service, repository } = setup((contract) =>
        contract.subject === toolExecutor.putTenant.subject && repository.rows.has('acme') ? new RpcError(WireErrorCode.Timeout, 'late') : { created: true },
      );
      await service.create({ slug: 'acme', name: 'Acme' }).catch(() => undefined);
      repository.rows.set('acme', { id: 'acme-id', slug: 'acme', name: 'Acme', disabled: false, createdAt: new Date(0), roles: [] });
      await expect(service.update('acme', { disabled: true })).rejects.toMatchObject({ code: IdentityErrorCode.Unavailable });
      expect(repository.rows.get('acme')?.disabled).toBe(false);
    });
  });
});
