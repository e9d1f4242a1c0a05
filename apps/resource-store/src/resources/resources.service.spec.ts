import { describe, expect, it } from 'vitest';
import type { Principal } from '@mcp-platform/protocol-contracts';
import type { MessageBus } from '@mcp-platform/shared-messaging';
import type { QuotaCheckedWrite, StoredResource, StoreRepository } from '../store/store.repository';
import type { ResourceDefinition, ResourceTemplateDefinition } from '../store/store.types';
import { ResourcesService } from './resources.service';

const principal: Principal = { subject: 'anonymous', tenant: 't', scopes: [], anonymous: true };
const address = { tenant: 't', server: 's', public: false };

/** The repository calls the service makes, over a map (one tenant, every server). */
class FakeRepository {
  readonly resources = new Map<string, StoredResource>();
  templates: ResourceTemplateDefinition[] = [];

  findResource(_tenant: string, _server: string, uri: string): Promise<StoredResource | undefined> {
    return Promise.resolve(this.resources.get(uri));
  }

  findTenantResource(_tenant: string, uri: string): Promise<StoredResource | undefined> {
    return Promise.resolve(this.resources.get(uri));
  }

  serverTemplates(): Promise<ResourceTemplateDefinition[]> {
    return Promise.resolve(this.templates);
  }

  writeResourceWithin(_tenant: string, resource: ResourceDefinition, size: number, maxTotalBytes: number): Promise<QuotaCheckedWrite> {
    const usedBytes = [...this.resources.values()].filter((stored) => stored.uri !== resource.uri).reduce((sum, stored) => sum + stored.size, 0);
    if (usedBytes + size > maxTotalBytes) return Promise.resolve({ refused: true, usedBytes });
    const outcome = this.resources.has(resource.uri) ? 'updated' : 'created';
    this.resources.set(resource.uri, { ...resource, size });
    return Promise.resolve({ refused: false, outcome });
  }

  deleteResource(_tenant: string, uri: string): Promise<string[] | undefined> {
    const stored = this.resources.get(uri);
    this.resources.delete(uri);
    return Promise.resolve(stored?.servers);
  }
}

function setup(quotaBytes = 10) {
  const repository = new FakeRepository();
  const emitted: Array<{ subject: string; payload: unknown }> = [];
  const bus = { emit: (contract: { subject: string }, payload: unknown) => emitted.push({ subject: contract.subject, payload }) } as unknown as MessageBus;
  const service = new ResourcesService(repository as unknown as StoreRepository, bus, quotaBytes);
  return { repository, emitted, service };
}

describe('ResourcesService', () => {
  describe('putResource', () => {
    it('counts text in UTF-8 bytes and blobs in decoded bytes against the quota', async () => {
      const { service } = setup(10);
      await expect(service.putResource('t', { uri: 'a://text', name: 'text', text: 'ééééé' })).resolves.toBe('created');
      await expect(service.putResource('t', { uri: 'a://blob', name: 'blob', blob: Buffer.alloc(1).toString('base64') })).rejects.toMatchObject({
        code: 'INVALID_PARAMS',
        data: { quotaBytes: 10, usedBytes: 10, requestedBytes: 1 },
      });
    });

    it('counts a replaced resource by its new size only', async () => {
      const { service } = setup(10);
      await service.putResource('t', { uri: 'a://x', name: 'x', text: '0123456789' });
      await expect(service.putResource('t', { uri: 'a://x', name: 'x', text: 'abcdefghij' })).resolves.toBe('updated');
    });

    it('leaves an identical resource alone and announces nothing', async () => {
      const { service, emitted } = setup();
      await service.putResource('t', { uri: 'a://x', name: 'x', text: 'v' });
      emitted.length = 0;
      await expect(service.putResource('t', { uri: 'a://x', name: 'x', text: 'v' })).resolves.toBe('unchanged');
      expect(emitted).toEqual([]);
    });

    it('announces an update of the content and the list change', async () => {
      const { service, emitted } = setup();
      await service.putResource('t', { uri: 'a://x', name: 'x', text: 'v', servers: ['s'] });
      emitted.length = 0;
      await service.putResource('t', { uri: 'a://x', name: 'x', text: 'w', servers: ['s'] });
      expect(emitted).toEqual([
        { subject: 'resource-store.v1.resource.updated', payload: { tenant: 't', uri: 'a://x' } },
        { subject: 'resource-store.v1.list.changed', payload: { tenant: 't', servers: ['s'], lists: ['resources'] } },
      ]);
    });

    it('refuses a definition with both text and blob', async () => {
      const { service } = setup();
      await expect(service.putResource('t', { uri: 'a://x', name: 'x', text: 'v', blob: 'AA==' })).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    });
  });

  describe('read', () => {
    it('prefers a stored resource over a template matching the same URI', async () => {
      const { service, repository } = setup(100);
      repository.templates = [{ name: 'any', uriTemplate: 'a://{id}', text: 'from template {id}', completions: {}, servers: [] }];
      await service.putResource('t', { uri: 'a://x', name: 'x', text: 'stored' });
      await expect(service.read(address, 'a://x', principal)).resolves.toMatchObject({ contents: [{ uri: 'a://x', text: 'stored' }] });
      await expect(service.read(address, 'a://y', principal)).resolves.toMatchObject({ contents: [{ uri: 'a://y', text: 'from template y' }] });
    });

    it('answers NOT_FOUND with the URI when nothing matches', async () => {
      const { service } = setup();
      await expect(service.read(address, 'a://missing', principal)).rejects.toMatchObject({ code: 'NOT_FOUND', data: { uri: 'a://missing' } });
    });

    it('refuses a principal of another tenant', async () => {
      const { service } = setup();
      await expect(service.read(address, 'a://x', { ...principal, tenant: 'other' })).rejects.toMatchObject({ code: 'FORBIDDEN' });
    });
  });

  describe('putResourceTemplate', () => {
    it('refuses a malformed URI template with INVALID_PARAMS', async () => {
      const { service } = setup();
      await expect(service.putResourceTemplate('t', { name: 'bad', uriTemplate: 'a://{+path}', text: '' })).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    });
  });

  describe('admin writes', () => {
    it('answers a put with whether it created the resource and the resource as stored', async () => {
      const { service } = setup(100);
      await expect(service.putResourceDefinition('t', { uri: 'a://x', name: 'x', text: 'v' })).resolves.toEqual({
        created: true,
        resource: { uri: 'a://x', name: 'x', text: 'v', servers: [], size: 1 },
      });
      await expect(service.putResourceDefinition('t', { uri: 'a://x', name: 'x', text: 'v' })).resolves.toMatchObject({ created: false });
    });

    it('deletes a resource, announcing the URI and the list of the servers that exposed it', async () => {
      const { service, emitted } = setup(100);
      await service.putResource('t', { uri: 'a://x', name: 'x', text: 'v', servers: ['s'] });
      emitted.length = 0;
      await expect(service.deleteResource('t', 'a://x')).resolves.toEqual({ deleted: true });
      expect(emitted).toEqual([
        { subject: 'resource-store.v1.resource.updated', payload: { tenant: 't', uri: 'a://x' } },
        { subject: 'resource-store.v1.list.changed', payload: { tenant: 't', servers: ['s'], lists: ['resources'] } },
      ]);
    });

    it('answers NOT_FOUND with the URI for an unknown resource, and announces nothing', async () => {
      const { service, emitted } = setup();
      await expect(service.deleteResource('t', 'a://missing')).rejects.toMatchObject({ code: 'NOT_FOUND', data: { uri: 'a://missing' } });
      await expect(service.getResourceDefinition('t', 'a://missing')).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(emitted).toEqual([]);
    });
  });
});
