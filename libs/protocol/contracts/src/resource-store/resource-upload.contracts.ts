import { z } from 'zod';
import { TENANT_SLUG_PATTERN } from '../common/tenant';
import { defineRpc } from '../define-contract';
import { ContentChunkSchema, RESOURCE_CONTENT_CHUNK_BYTES } from './resource.contracts';
import { ResourceFieldsSchema, ResourceSummarySchema, ResourceUriSchema } from './resource-admin.contracts';

/**
 * Content larger than one message, written and read by administrators in chunks of
 * `RESOURCE_CONTENT_CHUNK_BYTES` (the admin API's raw upload and download call these). An upload is
 * begun, appended to in order, then committed: the store stages the chunks and the commit writes the
 * resource at once under the tenant quota, with the same events as any write (`resourceUpdated` for
 * a replaced resource, `listChanged`). The stored content is bytes, served as a `blob`.
 *
 * Refusals: `INVALID_PARAMS` with `data: { maxResourceBytes, requestedBytes }` over the store's
 * per-resource limit (`RESOURCE_STORE_MAX_RESOURCE_BYTES`), with `data: { quotaBytes, usedBytes,
 * requestedBytes }` over the tenant quota (at commit); `NOT_FOUND` `{ uploadId }` for an upload that
 * is unknown, committed, aborted or swept after being idle.
 */

const Tenant = { tenant: z.string().regex(TENANT_SLUG_PATTERN) };
const UploadId = z.uuid();

/**
 * Starts an upload of the content of `uri`. A new resource needs `name`; for an existing one, the
 * fields given replace its own and the others (annotations and icons included) are kept.
 */
export const beginResourceUpload = defineRpc({
  subject: 'resource-store.v1.resource-upload.begin',
  request: z.object({
    ...Tenant,
    uri: ResourceUriSchema,
    mimeType: ResourceFieldsSchema.shape.mimeType.unwrap(),
    /** The size the uploader announced (an HTTP `Content-Length`): refused at once when over the limit. */
    declaredBytes: z.number().int().nonnegative().optional(),
    name: ResourceFieldsSchema.shape.name.optional(),
    title: ResourceFieldsSchema.shape.title,
    description: ResourceFieldsSchema.shape.description,
    servers: ResourceFieldsSchema.shape.servers.unwrap().optional(),
  }),
  response: z.object({
    uploadId: UploadId,
    /** The store's per-resource limit, in bytes. */
    maxResourceBytes: z.number().int().positive(),
  }),
});

/** Appends the next chunk; `offset` must be the number of bytes received so far (else `INVALID_PARAMS`). */
export const appendResourceUpload = defineRpc({
  subject: 'resource-store.v1.resource-upload.append',
  request: z.object({ ...Tenant, uploadId: UploadId, offset: z.number().int().nonnegative(), data: ContentChunkSchema }),
  response: z.object({ receivedBytes: z.number().int().nonnegative() }),
});

/**
 * Writes the resource from the staged chunks, if `totalBytes` were received, and removes the
 * upload. Answers like a put, with the resource as stored but without its content.
 */
export const commitResourceUpload = defineRpc({
  subject: 'resource-store.v1.resource-upload.commit',
  request: z.object({ ...Tenant, uploadId: UploadId, totalBytes: z.number().int().nonnegative() }),
  response: z.object({ created: z.boolean(), resource: ResourceSummarySchema }),
  // Joining the chunks of a large content into one row takes longer than a lookup.
  timeoutMs: 60_000,
});

/** Drops an upload and its chunks; `aborted: false` when there was none (already committed, aborted or swept). */
export const abortResourceUpload = defineRpc({
  subject: 'resource-store.v1.resource-upload.abort',
  request: z.object({ ...Tenant, uploadId: UploadId }),
  response: z.object({ aborted: z.boolean() }),
});

/**
 * `length` bytes of a tenant's resource content from `offset`, whatever server exposes it (the admin
 * download). Without `version` it reads the current content and names its version; with it, a content
 * rewritten since answers `{ changed: true }`. `NOT_FOUND` `{ uri }` for no resource at `uri`.
 */
export const readResourceDefinitionChunk = defineRpc({
  subject: 'resource-store.v1.resource-definition.read-chunk',
  request: z.object({
    ...Tenant,
    uri: ResourceUriSchema,
    offset: z.number().int().nonnegative(),
    length: z.number().int().positive().max(RESOURCE_CONTENT_CHUNK_BYTES),
    version: z.number().int().positive().optional(),
  }),
  response: z.union([
    z.object({
      data: ContentChunkSchema,
      /** Bytes of the whole content (UTF-8 for text). */
      size: z.number().int().nonnegative(),
      version: z.number().int().positive(),
      mimeType: z.string().optional(),
      encoding: z.enum(['text', 'blob']),
    }),
    z.object({ changed: z.literal(true) }),
  ]),
});
