import { z } from 'zod';
import { ReadResourceResultSchema, ResourceSchema, ResourceTemplateSchema } from '@mcp-platform/protocol-mcp';
import { defineEvent, defineRpc } from '../define-contract';
import { base64ByteLength } from './resource-admin.contracts';

/**
 * What every resource-store request names: the virtual server asked (`<tenant>/<server>`) and whether
 * that server is public. The broker knows the latter from the executor's server list; the store
 * uses it only for the caching hint (`cacheScope` S-248: `public` answers are the same for everyone).
 */
export const VirtualServerAddressSchema = z.object({
  /** Tenant slug, e.g. `demo`. */
  tenant: z.string().min(1).max(64),
  /** Virtual server slug inside the tenant, e.g. `default`. */
  server: z.string().min(1).max(64),
  /** The virtual server admits anonymous callers. */
  public: z.boolean(),
});

/** Caching hints of the modern era (S-246..S-249), computed by the store that owns the data. */
export const CachingHintsSchema = z.object({
  ttlMs: z.number().int().nonnegative(),
  cacheScope: z.enum(['public', 'private']),
});

/**
 * Opaque cursor from an earlier page (S-239); absent for the first page. Its length is the store's
 * to judge, so a client's bad cursor is `INVALID_PARAMS` (-32602, S-243) rather than a schema error.
 */
const Cursor = { cursor: z.string().optional() };

/** One page of the resources the virtual server exposes, ordered by URI. */
export const listResources = defineRpc({
  subject: 'resource-store.v1.resource.list',
  request: VirtualServerAddressSchema.extend(Cursor),
  response: CachingHintsSchema.extend({ resources: z.array(ResourceSchema), nextCursor: z.string().optional() }),
});

/** One page of the resource templates the virtual server exposes, ordered by name. */
export const listResourceTemplates = defineRpc({
  subject: 'resource-store.v1.resource-template.list',
  request: VirtualServerAddressSchema.extend(Cursor),
  response: CachingHintsSchema.extend({ resourceTemplates: z.array(ResourceTemplateSchema), nextCursor: z.string().optional() }),
});

/**
 * Raw bytes of resource content per message when content is read (or uploaded) in chunks: 256 KiB,
 * whose base64 (341 KiB) leaves room under NATS's default 1 MiB payload for the envelope. Text is
 * chunked as its UTF-8 bytes (base64 too), so a chunk's size never depends on JSON escaping, and a
 * character split between two chunks is whole again once the bytes are joined.
 */
export const RESOURCE_CONTENT_CHUNK_BYTES = 256 * 1024;

/** Base64 of at most `RESOURCE_CONTENT_CHUNK_BYTES` bytes. */
export const ContentChunkSchema = z
  .base64()
  .max(Math.ceil(RESOURCE_CONTENT_CHUNK_BYTES / 3) * 4)
  // The length bound alone lets up to two bytes more through; the decoded size is what counts.
  .refine((chunk) => base64ByteLength(chunk) <= RESOURCE_CONTENT_CHUNK_BYTES, { message: `at most ${RESOURCE_CONTENT_CHUNK_BYTES} bytes (base64)` });

/**
 * The start of a content larger than one chunk: what the reader needs to fetch the rest with
 * `readResourceChunk` and to build the MCP contents once every byte is there.
 */
export const ChunkedContentSchema = z.object({
  uri: z.string().min(1).max(2048),
  mimeType: z.string().optional(),
  /** `text`: the bytes are UTF-8, served as `text` once joined; `blob`: served as base64 `blob` (S-203). */
  encoding: z.enum(['text', 'blob']),
  /** Bytes of the whole content. */
  size: z.number().int().positive(),
  /** The stored content's version: every chunk read names it, so two versions are never mixed. */
  version: z.number().int().positive(),
  /** The first `RESOURCE_CONTENT_CHUNK_BYTES` bytes. */
  firstChunk: ContentChunkSchema,
});
export type ChunkedContent = z.infer<typeof ChunkedContentSchema>;

/**
 * The contents of one resource, or of a URI one of the server's templates matches. An unknown URI
 * (no resource, no template match) is `NOT_FOUND` with `data: { uri }`; the broker maps it to the
 * era's code (-32002 legacy, -32602 modern: S-209, S-210).
 *
 * A caller that sets `acceptChunks` gets a stored content larger than `RESOURCE_CONTENT_CHUNK_BYTES`
 * as `chunked` (with an empty `contents`) and reads the rest with `readResourceChunk`. Without it
 * (callers predating chunks), content up to `MAX_RESOURCE_CONTENT_BYTES` comes whole and larger
 * content is `INVALID_PARAMS`, since it cannot cross in one message.
 */
export const readResource = defineRpc({
  subject: 'resource-store.v1.resource.read',
  request: VirtualServerAddressSchema.extend({ uri: z.string().min(1).max(2048), acceptChunks: z.boolean().optional() }),
  response: CachingHintsSchema.extend({ contents: ReadResourceResultSchema.shape.contents, chunked: ChunkedContentSchema.optional() }),
});

/**
 * `length` bytes of a stored resource's content from `offset` (0-based), as the same virtual server
 * and principal see it, if its version is still `version`. Otherwise (rewritten, deleted, no longer
 * on the server) the answer is `{ changed: true }`: the reader starts again from `readResource`.
 */
export const readResourceChunk = defineRpc({
  subject: 'resource-store.v1.resource.read-chunk',
  request: VirtualServerAddressSchema.extend({
    uri: z.string().min(1).max(2048),
    offset: z.number().int().nonnegative(),
    length: z.number().int().positive().max(RESOURCE_CONTENT_CHUNK_BYTES),
    version: z.number().int().positive(),
  }),
  response: z.union([z.object({ data: ContentChunkSchema }), z.object({ changed: z.literal(true) })]),
});

/**
 * A resource's content changed (legacy `notifications/resources/updated`, modern subscriptions).
 * Every broker replica receives it and tells the sessions subscribed to the URI in the tenant.
 */
export const resourceUpdated = defineEvent({
  subject: 'resource-store.v1.resource.updated',
  delivery: 'all',
  payload: z.object({ tenant: z.string().min(1).max(64), uri: z.string().min(1).max(2048) }),
});

/**
 * A list of the tenant changed for `servers` (an empty array: every virtual server of the tenant);
 * brokers send `notifications/resources/list_changed` or `notifications/prompts/list_changed`.
 */
export const listChanged = defineEvent({
  subject: 'resource-store.v1.list.changed',
  delivery: 'all',
  payload: z.object({
    tenant: z.string().min(1).max(64),
    servers: z.array(z.string().min(1).max(64)),
    lists: z.array(z.enum(['resources', 'prompts'])).min(1),
  }),
});
