import { resourceStore } from '@mcp-platform/protocol-contracts';
import type { ReadResourceResult } from '@mcp-platform/protocol-mcp';

/** One further chunk as the store answers it: the bytes (base64), or the news that the content is another version now. */
export type ChunkAnswer = { data: string } | { changed: true };

/** Asks the store for `length` bytes from `offset` of the version the first answer named. */
export type ChunkReader = (offset: number, length: number) => Promise<ChunkAnswer>;

/** What a chunked read yields: the MCP contents entry, or `changed` when the content was rewritten meanwhile. */
export type AssembledContent = ReadResourceResult['contents'][number] | 'changed';

/**
 * Joins a content the store sends in chunks (`resourceStore.readResource` answered `chunked`): its
 * first chunk, then every further one of the same version, in order, into one buffer of the announced
 * size. `changed` as soon as the store says the version is gone, so two versions are never mixed. A
 * chunk of the wrong length is a broken store, thrown as an error. Text is decoded once, whole, so a
 * character split between two chunks comes out right.
 *
 * The JSON-RPC answer is one message, so the whole content is held here: about 2.3 times its size
 * (the bytes, then their base64) for each read in flight.
 */
export async function assembleChunkedContent(first: resourceStore.ChunkedContent, readChunk: ChunkReader): Promise<AssembledContent> {
  const bytes = Buffer.alloc(first.size);
  const head = Buffer.from(first.firstChunk, 'base64');
  if (head.length === 0 || head.length > first.size) throw new Error(`chunked read of ${first.uri}: a first chunk of ${head.length} bytes for ${first.size}`);
  let filled = head.copy(bytes, 0);
  while (filled < first.size) {
    const length = Math.min(resourceStore.RESOURCE_CONTENT_CHUNK_BYTES, first.size - filled);
    const answer = await readChunk(filled, length);
    if ('changed' in answer) return 'changed';
    const chunk = Buffer.from(answer.data, 'base64');
    if (chunk.length !== length) throw new Error(`chunked read of ${first.uri}: ${chunk.length} bytes at ${filled}, ${length} expected`);
    filled += chunk.copy(bytes, filled);
  }
  const base = { uri: first.uri, ...(first.mimeType === undefined ? {} : { mimeType: first.mimeType }) };
  return first.encoding === 'text' ? { ...base, text: bytes.toString('utf8') } : { ...base, blob: bytes.toString('base64') };
}
