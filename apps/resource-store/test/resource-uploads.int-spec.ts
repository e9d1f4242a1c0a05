import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import type { INestApplication } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Principal, resourceStore } from '@mcp-platform/protocol-contracts';
import { MessageBus } from '@mcp-platform/shared-messaging';
import { errorOf } from '@mcp-platform/shared-testing';
import { RESOURCE_STORE_CONNECTION } from '../src';
import { bootResourceStore, setups } from './resource-store.setups';

/**
 * Content larger than one NATS message (`resource-upload.contracts.ts`, `readResourceChunk`) against a
 * real store: chunked uploads, chunked reads, the limits, abandoned uploads, and reads racing rewrites.
 */

const run = `ru${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const CHUNK = resourceStore.RESOURCE_CONTENT_CHUNK_BYTES;
const MiB = 1024 * 1024;
const QUOTA_BYTES = 6 * MiB;
const MAX_RESOURCE_BYTES = 4 * MiB;

const onServer = (tenant: string, server = 'any') => ({ tenant, server, public: false });
const asReaderOf = (tenant: string) => ({ context: { principal: { subject: 'reader', tenant, scopes: [], anonymous: false } satisfies Principal } });

/** Each test writes in a tenant of its own, so quotas and lists never meet. */
let tenants = 0;
const freshTenant = () => `t${++tenants}`;

describe.each(setups(run))('resource uploads and chunked reads over $name', (setup) => {
  let app: INestApplication;
  let bus: MessageBus;
  let dataSource: DataSource;
  let drop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const database = await setup.database();
    drop = database.drop;
    app = await bootResourceStore(setup.messaging(), database.options, false, { tenantQuotaBytes: QUOTA_BYTES, maxResourceBytes: MAX_RESOURCE_BYTES });
    bus = app.get(MessageBus);
    dataSource = app.get<DataSource>(getDataSourceToken(RESOURCE_STORE_CONNECTION));
  });

  afterAll(async () => {
    try {
      await app?.close();
    } finally {
      await drop?.();
    }
  });

  async function begin(tenant: string, uri: string, metadata: { name?: string; servers?: string[] } = {}) {
    return bus.request(resourceStore.beginResourceUpload, { tenant, uri, mimeType: 'application/octet-stream', ...metadata });
  }

  async function appendAll(tenant: string, uploadId: string, bytes: Buffer): Promise<void> {
    for (let offset = 0; offset < bytes.length; offset += CHUNK) {
      await bus.request(resourceStore.appendResourceUpload, { tenant, uploadId, offset, data: bytes.subarray(offset, offset + CHUNK).toString('base64') });
    }
  }

  /** Begin, append every chunk in order, commit: what the admin API's raw upload does. */
  async function upload(tenant: string, uri: string, bytes: Buffer, metadata: { name?: string; servers?: string[] } = { name: 'upload' }) {
    const { uploadId } = await begin(tenant, uri, metadata);
    await appendAll(tenant, uploadId, bytes);
    return bus.request(resourceStore.commitResourceUpload, { tenant, uploadId, totalBytes: bytes.length });
  }

  /** A chunked read as the broker does it: the first answer, then every further chunk of its version; `changed` when it was rewritten meanwhile. */
  async function readWhole(tenant: string, uri: string, server = 'any'): Promise<{ encoding: 'text' | 'blob'; bytes: Buffer; version?: number } | 'changed'> {
    const address = { ...onServer(tenant, server), uri };
    const first = await bus.request(resourceStore.readResource, { ...address, acceptChunks: true }, asReaderOf(tenant));
    if (!first.chunked) {
      const [content] = first.contents;
      if (content && 'blob' in content) return { encoding: 'blob', bytes: Buffer.from(content.blob, 'base64') };
      return { encoding: 'text', bytes: Buffer.from(content && 'text' in content ? content.text : '', 'utf8') };
    }
    const { size, version, encoding } = first.chunked;
    const parts = [Buffer.from(first.chunked.firstChunk, 'base64')];
    for (let offset = parts[0]!.length; offset < size; offset += CHUNK) {
      const chunk = await bus.request(
        resourceStore.readResourceChunk,
        { ...address, offset, length: Math.min(CHUNK, size - offset), version },
        asReaderOf(tenant),
      );
      if ('changed' in chunk) return 'changed';
      parts.push(Buffer.from(chunk.data, 'base64'));
    }
    return { encoding, bytes: Buffer.concat(parts), version };
  }

  async function stagedRows(uploadId: string): Promise<{ uploads: number; chunks: number }> {
    const [uploads] = (await dataSource.query(`SELECT count(*)::int AS n FROM "resource_store"."resource_uploads" WHERE "id" = $1`, [uploadId])) as Array<{
      n: number;
    }>;
    const [chunks] = (await dataSource.query(`SELECT count(*)::int AS n FROM "resource_store"."resource_upload_chunks" WHERE "upload_id" = $1`, [
      uploadId,
    ])) as Array<{ n: number }>;
    return { uploads: Number(uploads?.n), chunks: Number(chunks?.n) };
  }

  /** Runs `body`, collecting the change events of `tenant` it caused (a marker event closes the window). */
  async function withEvents(tenant: string, body: () => Promise<void>) {
    const updated: string[] = [];
    const changed: Array<{ servers: string[]; lists: string[] }> = [];
    const subscriptions = [
      bus.subscribe(resourceStore.resourceUpdated, (payload) => payload.tenant === tenant && updated.push(payload.uri)),
      bus.subscribe(resourceStore.listChanged, (payload) => payload.tenant === tenant && changed.push({ servers: payload.servers, lists: payload.lists })),
    ];
    await bus.flush();
    try {
      await body();
      bus.emit(resourceStore.listChanged, { tenant, servers: ['marker'], lists: ['prompts'] });
      await expect.poll(() => changed.some((event) => event.servers[0] === 'marker')).toBe(true);
      return { updated, changed: changed.filter((event) => event.servers[0] !== 'marker') };
    } finally {
      for (const subscription of subscriptions) subscription.unsubscribe();
    }
  }

  it('stores a 3 MiB binary uploaded in chunks and serves it back identical through chunked reads, announcing it like a put', async () => {
    const tenant = freshTenant();
    const uri = 'acme://big.bin';
    const bytes = randomBytes(3 * MiB);
    const events = await withEvents(tenant, async () => {
      await expect(upload(tenant, uri, bytes, { name: 'big', servers: ['docs'] })).resolves.toEqual({
        created: true,
        resource: { uri, name: 'big', mimeType: 'application/octet-stream', servers: ['docs'], size: bytes.length },
      });
    });
    expect(events).toEqual({ updated: [], changed: [{ servers: ['docs'], lists: ['resources'] }] });

    const first = await bus.request(resourceStore.readResource, { ...onServer(tenant, 'docs'), uri, acceptChunks: true }, asReaderOf(tenant));
    expect(first.contents).toEqual([]);
    expect(first.chunked).toMatchObject({ uri, mimeType: 'application/octet-stream', encoding: 'blob', size: bytes.length });
    expect(Buffer.from(first.chunked!.firstChunk, 'base64').length).toBe(CHUNK);
    const read = await readWhole(tenant, uri, 'docs');
    expect(read).not.toBe('changed');
    expect(read !== 'changed' && read.encoding).toBe('blob');
    expect(read !== 'changed' && read.bytes.equals(bytes)).toBe(true);

    // A reader that does not accept chunks cannot get it in one message; the admin view leaves the content out.
    const tooLarge = await errorOf(bus.request(resourceStore.readResource, { ...onServer(tenant, 'docs'), uri }, asReaderOf(tenant)));
    expect(tooLarge).toMatchObject({ code: 'INVALID_PARAMS', data: { uri, size: bytes.length } });
    await expect(bus.request(resourceStore.getResourceDefinition, { tenant, uri })).resolves.toEqual({
      uri,
      name: 'big',
      mimeType: 'application/octet-stream',
      servers: ['docs'],
      size: bytes.length,
    });
    const adminChunk = await bus.request(resourceStore.readResourceDefinitionChunk, { tenant, uri, offset: CHUNK, length: CHUNK });
    expect(adminChunk).toMatchObject({ size: bytes.length, encoding: 'blob', mimeType: 'application/octet-stream' });
    expect('data' in adminChunk && Buffer.from(adminChunk.data, 'base64').equals(bytes.subarray(CHUNK, 2 * CHUNK))).toBe(true);
  });

  it('replaces the content of an existing resource, keeping its metadata, and announces the update', async () => {
    const tenant = freshTenant();
    const uri = 'acme://doc';
    await bus.request(resourceStore.putResourceDefinition, { tenant, resource: { uri, name: 'doc', title: 'The doc', text: 'small', servers: ['docs'] } });
    const bytes = randomBytes(CHUNK * 2 + 17);
    const events = await withEvents(tenant, async () => {
      await expect(upload(tenant, uri, bytes, {})).resolves.toEqual({
        created: false,
        resource: { uri, name: 'doc', title: 'The doc', mimeType: 'application/octet-stream', servers: ['docs'], size: bytes.length },
      });
    });
    expect(events).toEqual({ updated: [uri], changed: [{ servers: ['docs'], lists: ['resources'] }] });
    const read = await readWhole(tenant, uri, 'docs');
    expect(read !== 'changed' && read.bytes.equals(bytes)).toBe(true);
  });

  it('serves the uploaded content at once in place of a small content read just before', async () => {
    const tenant = freshTenant();
    const uri = 'acme://small';
    await bus.request(resourceStore.putResourceDefinition, { tenant, resource: { uri, name: 'small', text: 'before' } });
    await expect(readWhole(tenant, uri)).resolves.toEqual({ encoding: 'text', bytes: Buffer.from('before') });
    const bytes = randomBytes(100);
    await upload(tenant, uri, bytes, {});
    await expect(readWhole(tenant, uri)).resolves.toEqual({ encoding: 'blob', bytes });
  });

  it('stores an empty upload as an empty blob', async () => {
    const tenant = freshTenant();
    await expect(upload(tenant, 'acme://empty', Buffer.alloc(0), { name: 'empty' })).resolves.toMatchObject({ created: true, resource: { size: 0 } });
    await expect(
      bus.request(resourceStore.readResource, { ...onServer(tenant), uri: 'acme://empty', acceptChunks: true }, asReaderOf(tenant)),
    ).resolves.toMatchObject({
      contents: [{ uri: 'acme://empty', mimeType: 'application/octet-stream', blob: '' }],
    });
    await expect(bus.request(resourceStore.readResourceDefinitionChunk, { tenant, uri: 'acme://empty', offset: 0, length: CHUNK })).resolves.toMatchObject({
      data: '',
      size: 0,
    });
  });

  it('reads a text over one chunk as its UTF-8 bytes, whole again once joined, even with a character split between chunks', async () => {
    const tenant = freshTenant();
    const uri = 'acme://notes.md';
    // One ASCII byte first, so the 2-byte "é" straddles the chunk boundary.
    const text = `x${'é'.repeat(CHUNK / 2 + 100)}`;
    await bus.request(resourceStore.putResourceDefinition, { tenant, resource: { uri, name: 'notes', mimeType: 'text/markdown', text } });
    const read = await readWhole(tenant, uri);
    expect(read).toMatchObject({ encoding: 'text' });
    expect(read !== 'changed' && read.bytes.toString('utf8')).toBe(text);
    // Callers predating chunks still get it whole: it fits one message.
    await expect(bus.request(resourceStore.readResource, { ...onServer(tenant), uri }, asReaderOf(tenant))).resolves.toMatchObject({
      contents: [{ uri, text }],
    });
  });

  it('refuses at commit an upload that would take the tenant over its quota, keeping what is stored and dropping the upload', async () => {
    const tenant = freshTenant();
    await upload(tenant, 'acme://first.bin', randomBytes(3 * MiB));
    const second = randomBytes(3.5 * MiB);
    const { uploadId } = await begin(tenant, 'acme://second.bin', { name: 'second' });
    await appendAll(tenant, uploadId, second);
    const refused = await errorOf(bus.request(resourceStore.commitResourceUpload, { tenant, uploadId, totalBytes: second.length }));
    expect(refused).toMatchObject({ code: 'INVALID_PARAMS', data: { quotaBytes: QUOTA_BYTES, usedBytes: 3 * MiB, requestedBytes: second.length } });
    expect((await errorOf(bus.request(resourceStore.getResourceDefinition, { tenant, uri: 'acme://second.bin' }))).code).toBe('NOT_FOUND');
    await expect(bus.request(resourceStore.listResourceDefinitions, { tenant })).resolves.toMatchObject({
      resources: [{ uri: 'acme://first.bin', size: 3 * MiB }],
    });
    await expect(stagedRows(uploadId)).resolves.toEqual({ uploads: 0, chunks: 0 });
    expect((await errorOf(bus.request(resourceStore.commitResourceUpload, { tenant, uploadId, totalBytes: second.length }))).code).toBe('NOT_FOUND');
  });

  it('refuses content over the per-resource limit: announced at begin, or at the append that crosses it, which drops the upload', async () => {
    const tenant = freshTenant();
    const announced = await errorOf(
      bus.request(resourceStore.beginResourceUpload, {
        tenant,
        uri: 'acme://huge',
        mimeType: 'video/mp4',
        name: 'huge',
        declaredBytes: MAX_RESOURCE_BYTES + 1,
      }),
    );
    expect(announced).toMatchObject({ code: 'INVALID_PARAMS', data: { maxResourceBytes: MAX_RESOURCE_BYTES, requestedBytes: MAX_RESOURCE_BYTES + 1 } });

    const { uploadId, maxResourceBytes } = await begin(tenant, 'acme://huge', { name: 'huge' });
    expect(maxResourceBytes).toBe(MAX_RESOURCE_BYTES);
    await appendAll(tenant, uploadId, Buffer.alloc(MAX_RESOURCE_BYTES, 1));
    const crossing = await errorOf(
      bus.request(resourceStore.appendResourceUpload, { tenant, uploadId, offset: MAX_RESOURCE_BYTES, data: Buffer.from('x').toString('base64') }),
    );
    expect(crossing).toMatchObject({ code: 'INVALID_PARAMS', data: { maxResourceBytes: MAX_RESOURCE_BYTES, requestedBytes: MAX_RESOURCE_BYTES + 1 } });
    await expect(stagedRows(uploadId)).resolves.toEqual({ uploads: 0, chunks: 0 });
  });

  it('refuses a chunk out of order, a new resource without a name, and an incomplete commit', async () => {
    const tenant = freshTenant();
    const unnamed = await errorOf(begin(tenant, 'acme://nameless', {}));
    expect(unnamed).toMatchObject({ code: 'INVALID_PARAMS', data: { issues: [{ path: ['name'] }] } });

    const { uploadId } = await begin(tenant, 'acme://ordered', { name: 'ordered' });
    await bus.request(resourceStore.appendResourceUpload, { tenant, uploadId, offset: 0, data: Buffer.from('abc').toString('base64') });
    const replayed = await errorOf(
      bus.request(resourceStore.appendResourceUpload, { tenant, uploadId, offset: 0, data: Buffer.from('abc').toString('base64') }),
    );
    expect(replayed).toMatchObject({ code: 'INVALID_PARAMS', data: { uploadId, receivedBytes: 3 } });
    const incomplete = await errorOf(bus.request(resourceStore.commitResourceUpload, { tenant, uploadId, totalBytes: 4 }));
    expect(incomplete).toMatchObject({ code: 'INVALID_PARAMS', data: { uploadId, receivedBytes: 3 } });
    // Another tenant never reaches this tenant's upload.
    expect((await errorOf(bus.request(resourceStore.appendResourceUpload, { tenant: 'other', uploadId, offset: 0, data: 'AA==' }))).code).toBe('NOT_FOUND');
  });

  it('drops an abandoned upload with its chunks: when aborted, and once idle when the next upload begins', async () => {
    const tenant = freshTenant();
    const aborted = await begin(tenant, 'acme://aborted', { name: 'aborted' });
    await appendAll(tenant, aborted.uploadId, randomBytes(CHUNK + 1));
    await expect(stagedRows(aborted.uploadId)).resolves.toEqual({ uploads: 1, chunks: 2 });
    await expect(bus.request(resourceStore.abortResourceUpload, { tenant, uploadId: aborted.uploadId })).resolves.toEqual({ aborted: true });
    await expect(bus.request(resourceStore.abortResourceUpload, { tenant, uploadId: aborted.uploadId })).resolves.toEqual({ aborted: false });
    await expect(stagedRows(aborted.uploadId)).resolves.toEqual({ uploads: 0, chunks: 0 });

    const abandoned = await begin(tenant, 'acme://abandoned', { name: 'abandoned' });
    await appendAll(tenant, abandoned.uploadId, randomBytes(CHUNK));
    // The uploader went away an hour ago (longer than the idle timeout).
    await dataSource.query(`UPDATE "resource_store"."resource_uploads" SET "updated_at" = now() - interval '1 hour' WHERE "id" = $1`, [abandoned.uploadId]);
    const next = await begin(tenant, 'acme://next', { name: 'next' });
    await expect(stagedRows(abandoned.uploadId)).resolves.toEqual({ uploads: 0, chunks: 0 });
    expect((await errorOf(bus.request(resourceStore.appendResourceUpload, { tenant, uploadId: abandoned.uploadId, offset: CHUNK, data: 'AA==' }))).code).toBe(
      'NOT_FOUND',
    );
    await expect(stagedRows(next.uploadId)).resolves.toEqual({ uploads: 1, chunks: 0 });
  });

  it('answers changed to a chunk read of a version that was rewritten, and a fresh read serves the new content', async () => {
    const tenant = freshTenant();
    const uri = 'acme://moving';
    const before = Buffer.alloc(2 * CHUNK + 5, 0xaa);
    const after = Buffer.alloc(2 * CHUNK + 9, 0xbb);
    await upload(tenant, uri, before);
    const first = await bus.request(resourceStore.readResource, { ...onServer(tenant), uri, acceptChunks: true }, asReaderOf(tenant));
    await upload(tenant, uri, after, {});
    const stale = await bus.request(
      resourceStore.readResourceChunk,
      { ...onServer(tenant), uri, offset: CHUNK, length: CHUNK, version: first.chunked!.version },
      asReaderOf(tenant),
    );
    expect(stale).toEqual({ changed: true });
    const fresh = await readWhole(tenant, uri);
    expect(fresh !== 'changed' && fresh.bytes.equals(after)).toBe(true);
    const freshVersion = fresh !== 'changed' ? (fresh.version ?? 0) : 0;
    expect(freshVersion).toBeGreaterThan(first.chunked!.version);

    // A definition put raises the version too.
    const text = 't'.repeat(CHUNK + 1);
    await bus.request(resourceStore.putResourceDefinition, { tenant, resource: { uri, name: 'moving', text } });
    await expect(
      bus.request(resourceStore.readResourceChunk, { ...onServer(tenant), uri, offset: 0, length: 1, version: freshVersion }, asReaderOf(tenant)),
    ).resolves.toEqual({ changed: true });
    const rewritten = await readWhole(tenant, uri);
    expect(rewritten !== 'changed' && rewritten.bytes.toString('utf8')).toBe(text);
    expect(rewritten !== 'changed' && rewritten.version).toBeGreaterThan(freshVersion);
  });

  it('never joins two versions when chunked reads race rewrites', async () => {
    const tenant = freshTenant();
    const uri = 'acme://racing';
    // Each version is one byte value throughout, so a mixed read shows as two values.
    const versions = [Buffer.alloc(4 * CHUNK + 3, 0x11), Buffer.alloc(3 * CHUNK + 7, 0x22)];
    await upload(tenant, uri, versions[0]!);
    let writing = true;
    const writer = (async () => {
      try {
        for (let round = 1; round <= 6; round++) await upload(tenant, uri, versions[round % 2]!, {});
      } finally {
        writing = false;
      }
    })();
    const outcomes: Array<'changed' | 'whole'> = [];
    const reader = async () => {
      for (let attempt = 0; attempt < 40 && (writing || attempt < 2); attempt++) {
        const read = await readWhole(tenant, uri);
        if (read === 'changed') {
          outcomes.push('changed');
          continue;
        }
        expect(
          versions.some((version) => version.equals(read.bytes)),
          `a read of ${read.bytes.length} bytes is one whole version`,
        ).toBe(true);
        outcomes.push('whole');
      }
    };
    await Promise.all([writer, reader(), reader()]);
    expect(outcomes).toContain('whole');
  });
});
