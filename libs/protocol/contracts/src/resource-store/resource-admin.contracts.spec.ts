import { describe, expect, it } from 'vitest';
import { base64ByteLength, MAX_RESOURCE_CONTENT_BYTES, ResourceDefinitionSchema } from './resource-admin.contracts';

function blobOf(bytes: number): string {
  return Buffer.alloc(bytes, 0xab).toString('base64');
}

describe('resource content limits', () => {
  it('counts the bytes a base64 text decodes to, padded or not', () => {
    for (const bytes of [0, 1, 2, 3, 4, 5, 1_000]) {
      const padded = blobOf(bytes);
      expect(base64ByteLength(padded)).toBe(bytes);
      expect(base64ByteLength(padded.replace(/=+$/, ''))).toBe(bytes);
    }
  });

  it('accepts a blob of exactly the limit and refuses one byte more, with or without padding', () => {
    const base = { uri: 'demo://blob', name: 'blob', mimeType: 'application/octet-stream' };
    expect(ResourceDefinitionSchema.safeParse({ ...base, blob: blobOf(MAX_RESOURCE_CONTENT_BYTES) }).success).toBe(true);
    for (const bytes of [MAX_RESOURCE_CONTENT_BYTES + 1, MAX_RESOURCE_CONTENT_BYTES + 2, MAX_RESOURCE_CONTENT_BYTES + 1_024]) {
      const result = ResourceDefinitionSchema.safeParse({ ...base, blob: blobOf(bytes) });
      expect(result.success, `${bytes} bytes`).toBe(false);
      expect(result.error?.issues.map((issue) => issue.message)).toEqual([`at most ${MAX_RESOURCE_CONTENT_BYTES} bytes (base64)`]);
    }
  });
});
