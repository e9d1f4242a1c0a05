import { describe, expect, it, vi } from 'vitest';
import { type Principal, resourceStore } from '@mcp-platform/protocol-contracts';
import type { MessageBus } from '@mcp-platform/shared-messaging';
import { READ_CACHE_MAX_BYTES, READ_CACHE_MAX_CONTENT_BYTES, READ_CACHE_MAX_ENTRY_BYTES, READ_CACHE_TTL_MS } from '../resource-store.constants';
import type { ResourceDefinition, ResourceTemplateDefinition, UpstreamOrigin } from '../store/store.types';
import type { UpstreamCalls } from '../upstream-items/upstream-calls';
import { ResourceReadCache } from './resource-read.cache';
import { ResourceReadCacheNatsController } from './resource-read-cache.nats.controller';
import type { ResourceTemplatesRepository, ServedTemplate } from './resource-templates.repository';
import type { ContentSlice, ContentSliceRead, QuotaCheckedWrite, ResourceHead, ResourcesRepository, StoredResource } from './resources.repository';
import { ResourcesService } from './resources.service';

const principal: Principal = { subject: 'anonymous', tenant: 't', scopes: [], anonymous: true };
const address = { tenant: 't', server: 's', public: false };

/** The calls the service makes of both repositories (resources and templates), over a map (one tenant, every server). */
class FakeRepository {
  readonly resources = new Map<string, StoredResource>();
  templates: ServedTemplate[] = [];
  /** Upstream items by URI (resources) or name (templates): rows without content. */
  readonly upstreamResources = new Map<string, UpstreamOrigin>();

  readonly versions = new Map<string, number>();
  /** How often each read query ran. */
  readonly queries = { heads: 0, templates: 0 };
  /** When set, `readResourceHead` reads the rows at once but answers only once this resolves. */
  holdHeads: Promise<void> | undefined;
  async readResourceHead(_tenant: string, _server: string, uri: string, headBytes: number): Promise<ResourceHead | undefined> {
    this.queries.heads++;
    const upstream = this.upstreamResources.get(uri);
    if (upstream) return { uri, size: 0, version: 1, encoding: 'text', head: Buffer.alloc(0), upstream };
    const stored = this.resources.get(uri);
    const version = this.versions.get(uri) ?? 1;
    if (this.holdHeads) await this.holdHeads;
    if (!stored) return undefined;
    const bytes = this.bytesOf(stored);
    return {
      uri,
      ...(stored.mimeType ? { mimeType: stored.mimeType } : {}),
      size: bytes.length,
      version,
      encoding: stored.blob === undefined ? 'text' : 'blob',
      head: bytes.subarray(0, headBytes),
    };
  }
  readContentSlice(slice: ContentSlice): Promise<ContentSliceRead | undefined> {
    const stored = this.resources.get(slice.uri);
    const version = this.versions.get(slice.uri) ?? 1;
    if (!stored || (slice.version !== undefined && slice.version !== version)) return Promise.resolve(undefined);
    const bytes = this.bytesOf(stored);
    return Promise.resolve({
      data: bytes.subarray(slice.offset, slice.offset + slice.length),
      size: bytes.length,
      version,
      encoding: stored.blob === undefined ? 'text' : 'blob',
    });
  }
  private bytesOf(stored: StoredResource): Buffer {
    return stored.blob === undefined ? Buffer.from(stored.text ?? '', 'utf8') : Buffer.from(stored.blob, 'base64');
  }

  findTenantResource(_tenant: string, uri: string): Promise<StoredResource | undefined> {
    return Promise.resolve(this.resources.get(uri));
  }

  upstreamOrigin(_tenant: string, key: string): Promise<UpstreamOrigin | undefined> {
    return Promise.resolve(this.upstreamResources.get(key) ?? this.templates.find((template) => template.name === key)?.upstream);
  }

  serverTemplates(): Promise<ServedTemplate[]> {
    this.queries.templates++;
    return Promise.resolve(this.templates);
  }

  findTenantTemplate(_tenant: string, name: string): Promise<ResourceTemplateDefinition | undefined> {
    return Promise.resolve(this.templates.find((template) => template.name === name));
  }

  writeTemplate(_tenant: string, template: ResourceTemplateDefinition): Promise<'created' | 'updated'> {
    const outcome = this.templates.some((existing) => existing.name === template.name) ? 'updated' : 'created';
    this.templates = [...this.templates.filter((existing) => existing.name !== template.name), template];
    return Promise.resolve(outcome);
  }

  deleteTemplate(_tenant: string, name: string): Promise<string[] | undefined> {
    const existing = this.templates.find((template) => template.name === name);
    this.templates = this.templates.filter((template) => template.name !== name);
    return Promise.resolve(existing?.servers);
  }

  writeResourceWithin(_tenant: string, resource: ResourceDefinition, size: number, maxTotalBytes: number): Promise<QuotaCheckedWrite> {
    const usedBytes = [...this.resources.values()].filter((stored) => stored.uri !== resource.uri).reduce((sum, stored) => sum + stored.size, 0);
    if (usedBytes + size > maxTotalBytes) return Promise.resolve({ refused: true, usedBytes });
    const outcome = this.resources.has(resource.uri) ? 'updated' : 'created';
    this.resources.set(resource.uri, { ...resource, size });
    this.versions.set(resource.uri, (this.versions.get(resource.uri) ?? 0) + 1);
    return Promise.resolve({ refused: false, outcome });
  }

  deleteResource(_tenant: string, uri: string): Promise<string[] | undefined> {
    const stored = this.resources.get(uri);
    this.resources.delete(uri);
    return Promise.resolve(stored?.servers);
  }
}

function setup(quotaBytes = 10, maxResourceBytes = 16 * 1024 * 1024, readCacheEntries = 100) {
  const repository = new FakeRepository();
  const emitted: Array<{ subject: string; payload: unknown }> = [];
  const bus = { emit: (contract: { subject: string }, payload: unknown) => emitted.push({ subject: contract.subject, payload }) } as unknown as MessageBus;
  const readCache = new ResourceReadCache({
    maxEntries: readCacheEntries,
    maxBytes: READ_CACHE_MAX_BYTES,
    maxEntryBytes: READ_CACHE_MAX_ENTRY_BYTES,
    ttlMs: READ_CACHE_TTL_MS,
  });
  const upstreamReads: Array<{ tenant: string; origin: UpstreamOrigin; uri: string; principal: Principal }> = [];
  const upstreams = {
    readResource: (tenant: string, origin: UpstreamOrigin, uri: string, caller: Principal) => {
      upstreamReads.push({ tenant, origin, uri, principal: caller });
      return Promise.resolve([{ uri, text: `from ${origin.source}` }]);
    },
  } as unknown as UpstreamCalls;
  const service = new ResourcesService(
    repository as unknown as ResourcesRepository,
    repository as unknown as ResourceTemplatesRepository,
    bus,
    { tenantQuotaBytes: quotaBytes, maxResourceBytes, maxSkillArchiveBytes: 16 * 1024 * 1024 },
    readCache,
    upstreams,
  );
  return { repository, emitted, service, readCache, upstreamReads };
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

    it('announces new content of the same size as an update only: the list entry is the same', async () => {
      const { service, emitted } = setup();
      await service.putResource('t', { uri: 'a://x', name: 'x', text: 'v', servers: ['s'] });
      emitted.length = 0;
      await service.putResource('t', { uri: 'a://x', name: 'x', text: 'w', servers: ['s'] });
      expect(emitted).toEqual([{ subject: 'resource-store.v1.resource.updated', payload: { tenant: 't', uri: 'a://x' } }]);
    });

    it('announces the list change too when the list entry changes (size, metadata, servers)', async () => {
      const { service, emitted } = setup();
      await service.putResource('t', { uri: 'a://x', name: 'x', text: 'v', servers: ['s'] });
      for (const change of [{ text: 'longer' }, { title: 'X' }, { servers: ['s', 'u'] }]) {
        emitted.length = 0;
        await service.putResource('t', { uri: 'a://x', name: 'x', text: 'v', servers: ['s'], ...change });
        expect(
          emitted.map((event) => event.subject),
          JSON.stringify(change),
        ).toEqual(['resource-store.v1.resource.updated', 'resource-store.v1.list.changed']);
      }
    });

    it('refuses content over the per-resource limit with its numbers, before the quota', async () => {
      const { service } = setup(100, 4);
      await expect(service.putResource('t', { uri: 'a://x', name: 'x', text: 'abcde' })).rejects.toMatchObject({
        code: 'INVALID_PARAMS',
        data: { maxResourceBytes: 4, requestedBytes: 5 },
      });
      await expect(service.putResource('t', { uri: 'a://x', name: 'x', text: 'abcd' })).resolves.toBe('created');
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

    it('serves content of up to one chunk whole, and larger content as its first chunk with size and version to a caller accepting chunks', async () => {
      const chunk = resourceStore.RESOURCE_CONTENT_CHUNK_BYTES;
      const { service, repository } = setup(10 * chunk);
      const small = Buffer.alloc(chunk, 1);
      const large = Buffer.alloc(chunk + 1, 2);
      repository.resources.set('a://small', { uri: 'a://small', name: 's', blob: small.toString('base64'), servers: [], size: chunk });
      repository.resources.set('a://large', {
        uri: 'a://large',
        name: 'l',
        mimeType: 'application/octet-stream',
        blob: large.toString('base64'),
        servers: [],
        size: chunk + 1,
      });
      repository.versions.set('a://large', 3);
      await expect(service.read(address, 'a://small', principal, true)).resolves.toMatchObject({
        contents: [{ uri: 'a://small', blob: small.toString('base64') }],
      });
      await expect(service.read(address, 'a://large', principal, true)).resolves.toEqual({
        contents: [],
        chunked: {
          uri: 'a://large',
          mimeType: 'application/octet-stream',
          encoding: 'blob',
          size: chunk + 1,
          version: 3,
          firstChunk: large.subarray(0, chunk).toString('base64'),
        },
        ttlMs: expect.any(Number),
        cacheScope: 'private',
      });
    });

    it('serves a text over one chunk whole to a caller not accepting chunks, up to one message', async () => {
      const { service, repository } = setup(10 * 1024 * 1024);
      const text = 'é'.repeat(resourceStore.RESOURCE_CONTENT_CHUNK_BYTES);
      await service.putResource('t', { uri: 'a://text', name: 'text', text });
      await expect(service.read(address, 'a://text', principal)).resolves.toMatchObject({ contents: [{ uri: 'a://text', text }] });
      repository.resources.set('a://huge', {
        uri: 'a://huge',
        name: 'h',
        blob: Buffer.alloc(resourceStore.MAX_RESOURCE_CONTENT_BYTES + 1).toString('base64'),
        servers: [],
        size: 0,
      });
      await expect(service.read(address, 'a://huge', principal)).rejects.toMatchObject({
        code: 'INVALID_PARAMS',
        data: { uri: 'a://huge', size: resourceStore.MAX_RESOURCE_CONTENT_BYTES + 1 },
      });
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

  describe('read from the read cache', () => {
    const textOf = async (service: ResourcesService, uri: string, acceptChunks = false) => {
      const result = await service.read(address, uri, principal, acceptChunks);
      return result.contents.map((content) => ('text' in content ? content.text : undefined));
    };

    it('serves a repeated read of a small resource without the repository, whether or not the caller accepts chunks', async () => {
      const { service, repository } = setup(100);
      await service.putResource('t', { uri: 'a://x', name: 'x', text: 'v1' });
      await expect(textOf(service, 'a://x')).resolves.toEqual(['v1']);
      await expect(textOf(service, 'a://x')).resolves.toEqual(['v1']);
      await expect(textOf(service, 'a://x', true)).resolves.toEqual(['v1']);
      expect(repository.queries.heads).toBe(1);
    });

    it('adds each request’s own caching hints to a cached answer', async () => {
      const { service, repository } = setup(100);
      await service.putResource('t', { uri: 'a://x', name: 'x', text: 'v1' });
      await expect(service.read(address, 'a://x', principal)).resolves.toMatchObject({ cacheScope: 'private' });
      await expect(service.read({ ...address, public: true }, 'a://x', principal)).resolves.toMatchObject({
        cacheScope: 'public',
        ttlMs: expect.any(Number) as number,
      });
      expect(repository.queries.heads).toBe(1);
    });

    it('serves template reads and NOT_FOUND without the repository once it knows the URI is not stored', async () => {
      const { service, repository } = setup(100);
      repository.templates = [{ name: 'any', uriTemplate: 'a://t/{id}', text: 'from template {id}', completions: {}, servers: [] }];
      for (let round = 0; round < 2; round++) {
        await expect(textOf(service, 'a://t/1')).resolves.toEqual(['from template 1']);
        await expect(service.read(address, 'b://missing', principal)).rejects.toMatchObject({ code: 'NOT_FOUND', data: { uri: 'b://missing' } });
      }
      expect(repository.queries).toEqual({ heads: 2, templates: 1 });
    });

    it('answers every write of this replica with the tenant’s cached reads dropped', async () => {
      const { service } = setup(100);
      await service.read(address, 'a://x', principal).catch(() => undefined);
      await service.putResource('t', { uri: 'a://x', name: 'x', text: 'v1' });
      // spec S-209: a NOT_FOUND read before the write is not served after it.
      await expect(textOf(service, 'a://x')).resolves.toEqual(['v1']);
      await service.putResource('t', { uri: 'a://x', name: 'x', text: 'v2' });
      await expect(textOf(service, 'a://x')).resolves.toEqual(['v2']);
      await service.deleteResource('t', 'a://x');
      await expect(service.read(address, 'a://x', principal)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      await service.putResourceTemplate('t', { name: 'any', uriTemplate: 'a://{id}', text: 'template {id}' });
      await expect(textOf(service, 'a://x')).resolves.toEqual(['template x']);
      await service.putResourceTemplate('t', { name: 'any', uriTemplate: 'a://{id}', text: 'new template {id}' });
      await expect(textOf(service, 'a://x')).resolves.toEqual(['new template x']);
      await service.deleteResourceTemplate('t', 'any');
      await expect(service.read(address, 'a://x', principal)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    });

    it('drops the tenant’s cached reads on a change event from another replica, not on a prompt list change', async () => {
      const { service, repository, readCache } = setup(100);
      const events = new ResourceReadCacheNatsController(readCache);
      await service.putResource('t', { uri: 'a://x', name: 'x', text: 'v1' });
      await textOf(service, 'a://x');
      // Another replica's write: the rows change here without this replica's service.
      repository.resources.set('a://x', { uri: 'a://x', name: 'x', text: 'v2', servers: [], size: 2 });
      events.listChanged({ tenant: 't', servers: [], lists: ['prompts'] });
      events.resourceUpdated({ tenant: 'other', uri: 'a://x' });
      await expect(textOf(service, 'a://x')).resolves.toEqual(['v1']);
      events.resourceUpdated({ tenant: 't', uri: 'a://x' });
      await expect(textOf(service, 'a://x')).resolves.toEqual(['v2']);
      repository.resources.set('a://x', { uri: 'a://x', name: 'x', text: 'v3', servers: [], size: 2 });
      events.listChanged({ tenant: 't', servers: ['s'], lists: ['resources'] });
      await expect(textOf(service, 'a://x')).resolves.toEqual(['v3']);
    });

    it('does not keep what a read found when a write of the tenant happened while it queried', async () => {
      const { service, repository } = setup(100);
      await service.putResource('t', { uri: 'a://x', name: 'x', text: 'v1' });
      let release = (): void => undefined;
      repository.holdHeads = new Promise<void>((resolve) => (release = resolve));
      const inFlight = textOf(service, 'a://x');
      await vi.waitFor(() => expect(repository.queries.heads).toBe(1));
      repository.holdHeads = undefined;
      await service.putResource('t', { uri: 'a://x', name: 'x', text: 'v2' });
      release();
      // It read the rows before the write: answering them is fine, keeping them is not.
      await expect(inFlight).resolves.toEqual(['v1']);
      await expect(textOf(service, 'a://x')).resolves.toEqual(['v2']);
      expect(repository.queries.heads).toBe(2);
    });

    it('never keeps content over the bound, nor a chunked answer', async () => {
      const chunk = resourceStore.RESOURCE_CONTENT_CHUNK_BYTES;
      const { service, repository } = setup(10 * chunk);
      await service.putResource('t', { uri: 'a://bound', name: 'bound', text: 'b'.repeat(READ_CACHE_MAX_CONTENT_BYTES) });
      await service.putResource('t', { uri: 'a://over', name: 'over', text: 'o'.repeat(READ_CACHE_MAX_CONTENT_BYTES + 1) });
      repository.resources.set('a://chunked', {
        uri: 'a://chunked',
        name: 'c',
        blob: Buffer.alloc(chunk + 1).toString('base64'),
        servers: [],
        size: chunk + 1,
      });
      for (const [uri, acceptChunks, heads] of [
        ['a://bound', false, 1],
        ['a://over', false, 2],
        ['a://over', true, 2],
        ['a://chunked', true, 2],
      ] as const) {
        repository.queries.heads = 0;
        await service.read(address, uri, principal, acceptChunks);
        await service.read(address, uri, principal, acceptChunks);
        expect(repository.queries.heads, uri).toBe(heads);
      }
    });

    it('queries every time when disabled', async () => {
      const { service, repository } = setup(100, undefined, 0);
      await service.putResource('t', { uri: 'a://x', name: 'x', text: 'v1' });
      await textOf(service, 'a://x');
      await textOf(service, 'a://x');
      expect(repository.queries.heads).toBe(2);
    });
  });

  describe('readChunk', () => {
    it('reads a slice of the version asked for, and answers changed once the content is another', async () => {
      const { service } = setup(100);
      await service.putResource('t', { uri: 'a://x', name: 'x', text: 'héllo' });
      await expect(service.readChunk(address, { uri: 'a://x', offset: 1, length: 2, version: 1 }, principal)).resolves.toEqual({
        data: Buffer.from('é').toString('base64'),
      });
      await service.putResource('t', { uri: 'a://x', name: 'x', text: 'hello' });
      await expect(service.readChunk(address, { uri: 'a://x', offset: 1, length: 2, version: 1 }, principal)).resolves.toEqual({ changed: true });
      await expect(service.readChunk(address, { uri: 'a://x', offset: 0, length: 2, version: 1 }, { ...principal, tenant: 'other' })).rejects.toMatchObject({
        code: 'FORBIDDEN',
      });
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
  describe('upstream items', () => {
    const files: UpstreamOrigin = { sourceId: '6f1c1f5e-8d1a-4a53-9a55-1a0b5a1a2b3c', source: 'files', name: 'file:///readme' };
    const upstreamTemplate = (name: string, uriTemplate: string, upstreamName: string): ServedTemplate => ({
      name,
      uriTemplate,
      text: '',
      completions: {},
      servers: [],
      upstream: { ...files, name: upstreamName },
    });

    it('reads an upstream resource through the executor with the caller, whole, with ttlMs 0, and never from the cache', async () => {
      const { service, repository, upstreamReads } = setup();
      repository.upstreamResources.set('file:///readme', files);
      for (let read = 0; read < 2; read++) {
        await expect(service.read(address, 'file:///readme', principal, true)).resolves.toEqual({
          contents: [{ uri: 'file:///readme', text: 'from files' }],
          ttlMs: 0,
          cacheScope: 'private',
        });
      }
      expect(upstreamReads).toEqual([
        { tenant: 't', origin: files, uri: 'file:///readme', principal },
        { tenant: 't', origin: files, uri: 'file:///readme', principal },
      ]);
      expect(repository.queries.heads).toBe(2);
    });

    it('keeps the precedence: a stored resource before any template, then the templates in their order, upstream or not', async () => {
      const { service, repository, upstreamReads, readCache } = setup(1000);
      await service.putResource('t', { uri: 'notes://exact', name: 'exact', text: 'own' });
      await service.putResourceTemplate('t', { name: 'b-own', uriTemplate: 'notes://{topic}', text: 'own {topic}' });
      repository.templates = [upstreamTemplate('a-upstream', 'notes://{topic}', 'notes'), ...repository.templates];
      await expect(service.read(address, 'notes://exact', principal)).resolves.toMatchObject({ contents: [{ text: 'own' }] });
      await expect(service.read(address, 'notes://other', principal)).resolves.toMatchObject({ contents: [{ text: 'from files' }], ttlMs: 0 });
      expect(upstreamReads.map((read) => read.uri)).toEqual(['notes://other']);
      repository.templates = [...repository.templates.filter((template) => !template.upstream), upstreamTemplate('c-upstream', 'notes://{topic}', 'notes')];
      readCache.invalidateTenant('t');
      await expect(service.read(address, 'notes://other', principal)).resolves.toMatchObject({ contents: [{ text: 'own other' }] });
    });

    it('refuses to put or delete a resource or template an upstream source holds, naming the source', async () => {
      const { service, repository, emitted } = setup(1000);
      repository.upstreamResources.set('file:///readme', files);
      repository.templates = [upstreamTemplate('files__notes', 'notes://{topic}', 'notes')];
      const refusal = { code: 'INVALID_PARAMS', data: { code: 'UPSTREAM_ITEM', source: 'files' } };
      await expect(service.putResource('t', { uri: 'file:///readme', name: 'readme', text: 'mine' })).rejects.toMatchObject(refusal);
      await expect(service.deleteResource('t', 'file:///readme')).rejects.toMatchObject(refusal);
      await expect(service.putResourceTemplate('t', { name: 'files__notes', uriTemplate: 'n://{x}', text: '' })).rejects.toMatchObject(refusal);
      await expect(service.deleteResourceTemplate('t', 'files__notes')).rejects.toThrow(/upstream source files/);
      expect(repository.resources.size).toBe(0);
      expect(emitted).toEqual([]);
    });
  });
});
