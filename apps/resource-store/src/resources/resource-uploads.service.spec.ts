import { describe, expect, it } from 'vitest';
import type { MessageBus } from '@mcp-platform/shared-messaging';
import { ResourceReadCache } from './resource-read.cache';
import { ResourceUploadsService } from './resource-uploads.service';
import type { ResourcesRepository } from './resources.repository';
import type { AppendOutcome, CommitOutcome, NewUpload, UploadRepository } from './upload.repository';

const LIMITS = { tenantQuotaBytes: 100, maxResourceBytes: 10, maxSkillArchiveBytes: 20 };

/** The repository calls the service makes, answering what each test sets. */
class FakeUploads {
  created: NewUpload[] = [];
  sweeps: number[] = [];
  appendOutcome: AppendOutcome = { kind: 'appended', receivedBytes: 3 };
  commitOutcome: CommitOutcome = { kind: 'unknown' };

  create(upload: NewUpload): Promise<void> {
    this.created.push(upload);
    return Promise.resolve();
  }
  append(): Promise<AppendOutcome> {
    return Promise.resolve(this.appendOutcome);
  }
  commitWithin(): Promise<CommitOutcome> {
    return Promise.resolve(this.commitOutcome);
  }
  sweepIdle(idleMs: number): Promise<number> {
    this.sweeps.push(idleMs);
    return Promise.resolve(0);
  }
}

function setup(existing: string[] = [], upstream: Record<string, { sourceId: string; source: string; name: string }> = {}) {
  const uploads = new FakeUploads();
  const resources = {
    upstreamOrigin: (_tenant: string, uri: string) => Promise.resolve(upstream[uri]),
    resourceExists: (_tenant: string, uri: string) => Promise.resolve(existing.includes(uri)),
    findTenantResourceSummary: (_tenant: string, uri: string) => Promise.resolve({ uri, name: 'n', servers: [], size: 3 }),
  };
  const emitted: Array<{ subject: string; payload: unknown }> = [];
  const bus = { emit: (contract: { subject: string }, payload: unknown) => emitted.push({ subject: contract.subject, payload }) } as unknown as MessageBus;
  const readCache = new ResourceReadCache({ maxEntries: 10, maxBytes: 1024 * 1024, maxEntryBytes: 64 * 1024, ttlMs: 5_000 });
  const service = new ResourceUploadsService(uploads as unknown as UploadRepository, resources as unknown as ResourcesRepository, bus, LIMITS, readCache);
  return { uploads, emitted, service, readCache };
}

const begin = { tenant: 't', uri: 'a://x', mimeType: 'application/octet-stream' };

describe('ResourceUploadsService', () => {
  describe('begin', () => {
    it('refuses a URI an upstream source serves, naming it, before anything is staged', async () => {
      const { service, uploads } = setup([], {
        'file:///readme': { sourceId: '6f1c1f5e-8d1a-4a53-9a55-1a0b5a1a2b3c', source: 'files', name: 'file:///readme' },
      });
      await expect(service.begin({ tenant: 't', uri: 'file:///readme', mimeType: 'text/plain', name: 'readme' })).rejects.toMatchObject({
        code: 'INVALID_PARAMS',
        data: { code: 'UPSTREAM_ITEM', source: 'files' },
      });
      expect(uploads.created).toEqual([]);
    });

    it('refuses an announced size over the per-resource limit before anything is written', async () => {
      const { service, uploads } = setup();
      await expect(service.begin({ ...begin, name: 'x', declaredBytes: 11 })).rejects.toMatchObject({
        code: 'INVALID_PARAMS',
        data: { maxResourceBytes: 10, requestedBytes: 11 },
      });
      expect(uploads.created).toEqual([]);
    });

    it('sweeps idle uploads, then needs a name only for a new resource', async () => {
      const { service, uploads } = setup(['a://existing']);
      await expect(service.begin(begin)).rejects.toMatchObject({ code: 'INVALID_PARAMS', data: { issues: [{ path: ['name'] }] } });
      await expect(service.begin({ ...begin, uri: 'a://existing' })).resolves.toMatchObject({ uploadId: expect.any(String), maxResourceBytes: 10 });
      expect(uploads.sweeps).toHaveLength(2);
      expect(uploads.created).toEqual([expect.objectContaining({ tenant: 't', uri: 'a://existing', name: undefined })]);
    });
  });

  describe('append', () => {
    it.each([
      [{ kind: 'unknown' } as const, { code: 'NOT_FOUND', data: { uploadId: 'u' } }],
      [{ kind: 'out-of-order', receivedBytes: 3 } as const, { code: 'INVALID_PARAMS', data: { uploadId: 'u', receivedBytes: 3 } }],
      [{ kind: 'too-large', requestedBytes: 12, maxBytes: 10 } as const, { code: 'INVALID_PARAMS', data: { maxResourceBytes: 10, requestedBytes: 12 } }],
    ])('answers %o with its refusal', async (outcome, refusal) => {
      const { service, uploads } = setup();
      uploads.appendOutcome = outcome;
      await expect(service.append('t', 'u', 0, 'AA==')).rejects.toMatchObject(refusal);
    });
  });

  describe('commit', () => {
    it('announces a replaced resource and the list of the servers before and after, like a put', async () => {
      const { service, uploads, emitted } = setup();
      uploads.commitOutcome = { kind: 'committed', outcome: 'updated', uri: 'a://x', servers: ['b'], previousServers: ['a'] };
      await expect(service.commit('t', 'u', 3)).resolves.toEqual({ created: false, resource: { uri: 'a://x', name: 'n', servers: [], size: 3 } });
      expect(emitted).toEqual([
        { subject: 'resource-store.v1.resource.updated', payload: { tenant: 't', uri: 'a://x' } },
        { subject: 'resource-store.v1.list.changed', payload: { tenant: 't', servers: ['a', 'b'], lists: ['resources'] } },
      ]);
    });

    it('drops the tenant’s cached reads before it answers', async () => {
      const { service, uploads, readCache } = setup();
      readCache.putRead(readCache.begin('t'), 's', 'a://x', { kind: 'absent' });
      readCache.putRead(readCache.begin('other'), 's', 'a://x', { kind: 'absent' });
      uploads.commitOutcome = { kind: 'committed', outcome: 'created', uri: 'a://x', servers: [], previousServers: undefined };
      await service.commit('t', 'u', 3);
      expect(readCache.getRead('t', 's', 'a://x')).toBeUndefined();
      expect(readCache.getRead('other', 's', 'a://x')).toEqual({ kind: 'absent' });
    });

    it('answers the quota refusal with its numbers and announces nothing', async () => {
      const { service, uploads, emitted } = setup();
      uploads.commitOutcome = { kind: 'over-quota', usedBytes: 95, requestedBytes: 10 };
      await expect(service.commit('t', 'u', 10)).rejects.toMatchObject({
        code: 'INVALID_PARAMS',
        data: { quotaBytes: 100, usedBytes: 95, requestedBytes: 10 },
      });
      expect(emitted).toEqual([]);
    });
  });
});
