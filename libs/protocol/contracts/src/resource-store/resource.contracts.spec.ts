import { describe, expect, it } from 'vitest';
import { ContentChunkSchema, readResource, readResourceChunk, RESOURCE_CONTENT_CHUNK_BYTES } from './resource.contracts';

/** NATS's default largest payload: every chunked message must fit with room to spare. */
const NATS_DEFAULT_MAX_PAYLOAD = 1024 * 1024;

describe('chunked resource content', () => {
  it('accepts a chunk of exactly RESOURCE_CONTENT_CHUNK_BYTES and refuses one byte more', () => {
    expect(ContentChunkSchema.safeParse(Buffer.alloc(RESOURCE_CONTENT_CHUNK_BYTES, 0xff).toString('base64')).success).toBe(true);
    expect(ContentChunkSchema.safeParse(Buffer.alloc(RESOURCE_CONTENT_CHUNK_BYTES + 1, 0xff).toString('base64')).success).toBe(false);
  });

  it('keeps a first answer and a chunk answer of a full chunk well under one NATS message', () => {
    const firstChunk = Buffer.alloc(RESOURCE_CONTENT_CHUNK_BYTES, 0xff).toString('base64');
    const first = readResource.response.parse({
      contents: [],
      chunked: { uri: `demo://${'u'.repeat(2000)}`, mimeType: 'application/octet-stream', encoding: 'blob', size: 16 * 1024 * 1024, version: 1, firstChunk },
      ttlMs: 30_000,
      cacheScope: 'public',
    });
    const chunk = readResourceChunk.response.parse({ data: firstChunk });
    for (const answer of [first, chunk]) expect(JSON.stringify({ ok: true, value: answer }).length).toBeLessThan(NATS_DEFAULT_MAX_PAYLOAD / 2);
  });

  it('tells a chunk from the news that the content changed', () => {
    expect(readResourceChunk.response.parse({ changed: true })).toEqual({ changed: true });
    expect(readResourceChunk.response.parse({ data: 'AAEC' })).toEqual({ data: 'AAEC' });
  });
});
