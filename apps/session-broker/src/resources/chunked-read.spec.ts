import { describe, expect, it } from 'vitest';
import { resourceStore } from '@mcp-platform/protocol-contracts';
import { assembleChunkedContent, type ChunkAnswer } from './chunked-read';

const CHUNK = resourceStore.RESOURCE_CONTENT_CHUNK_BYTES;

/** A store's chunk reads over `content`, recording what was asked; `changedAt` answers `changed` from that offset on. */
function storeOf(content: Buffer, changedAt = Infinity) {
  const asked: Array<[number, number]> = [];
  const readChunk = (offset: number, length: number): Promise<ChunkAnswer> => {
    asked.push([offset, length]);
    if (offset >= changedAt) return Promise.resolve({ changed: true });
    return Promise.resolve({ data: content.subarray(offset, offset + length).toString('base64') });
  };
  return { asked, readChunk };
}

function firstOf(content: Buffer, encoding: 'text' | 'blob', mimeType?: string): resourceStore.ChunkedContent {
  return {
    uri: 'demo://big',
    ...(mimeType ? { mimeType } : {}),
    encoding,
    size: content.length,
    version: 4,
    firstChunk: content.subarray(0, CHUNK).toString('base64'),
  };
}

describe('assembleChunkedContent', () => {
  it('joins a blob from its first chunk and every further chunk, asking for each in order with its exact length', async () => {
    const content = Buffer.alloc(2 * CHUNK + 10);
    for (let index = 0; index < content.length; index++) content[index] = index % 251;
    const store = storeOf(content);
    await expect(assembleChunkedContent(firstOf(content, 'blob', 'application/octet-stream'), store.readChunk)).resolves.toEqual({
      uri: 'demo://big',
      mimeType: 'application/octet-stream',
      blob: content.toString('base64'),
    });
    expect(store.asked).toEqual([
      [CHUNK, CHUNK],
      [2 * CHUNK, 10],
    ]);
  });

  it('decodes a text once joined, so a character split between two chunks comes out whole', async () => {
    const text = `x${'€'.repeat(CHUNK / 3 + 5)}`;
    const content = Buffer.from(text, 'utf8');
    const assembled = await assembleChunkedContent(firstOf(content, 'text'), storeOf(content).readChunk);
    expect(assembled).toEqual({ uri: 'demo://big', text });
  });

  it('answers changed as soon as the store says the version is gone, asking nothing more', async () => {
    const content = Buffer.alloc(4 * CHUNK, 7);
    const store = storeOf(content, 2 * CHUNK);
    await expect(assembleChunkedContent(firstOf(content, 'blob'), store.readChunk)).resolves.toBe('changed');
    expect(store.asked).toEqual([
      [CHUNK, CHUNK],
      [2 * CHUNK, CHUNK],
    ]);
  });

  it('refuses a chunk of another length than asked (a broken store), rather than serve a shifted content', async () => {
    const content = Buffer.alloc(2 * CHUNK, 1);
    const short = () => Promise.resolve({ data: Buffer.alloc(10).toString('base64') });
    await expect(assembleChunkedContent(firstOf(content, 'blob'), short)).rejects.toThrow(
      `chunked read of demo://big: 10 bytes at ${CHUNK}, ${CHUNK} expected`,
    );
  });
});
