import { z } from 'zod';
import { ReadResourceResultSchema, ResourceSchema, ResourceTemplateSchema } from '@mcp-platform/protocol-mcp';
import { defineEvent, defineRpc } from '../define-contract';

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
 * The contents of one resource, or of a URI one of the server's templates matches. An unknown URI
 * (no resource, no template match) is `NOT_FOUND` with `data: { uri }`; the broker maps it to the
 * era's code (-32002 legacy, -32602 modern: S-209, S-210).
 */
export const readResource = defineRpc({
  subject: 'resource-store.v1.resource.read',
  request: VirtualServerAddressSchema.extend({ uri: z.string().min(1).max(2048) }),
  response: CachingHintsSchema.extend({ contents: ReadResourceResultSchema.shape.contents }),
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
