import { z } from 'zod';
import { TENANT_SLUG_PATTERN } from '../common/tenant';
import { defineRpc } from '../define-contract';
import { HttpHeaderNameSchema, HttpHeaderSetSchema } from './catalog-admin.contracts';

/**
 * Upstream MCP servers as tool sources (issue 15), as a tenant's administrators see them: the admin API
 * of the authorization server calls these. The tool executor owns the sources, their connections and
 * their pinned definitions; an approved upstream tool is a tool of the tenant's catalog (kind
 * `upstream`), which virtual servers expose like any other. Errors: `NOT_FOUND` for an unknown tenant,
 * source or stdio server; `INVALID_PARAMS` for a source the executor cannot use, and with
 * `data.code: 'DIGEST_CHANGED'` for an approval whose digest is no longer the observed one (the admin
 * API answers 409 then).
 */

const Slug = z.string().regex(TENANT_SLUG_PATTERN, 'lowercase letters, digits and "-", at most 63, starting with a letter or digit');
const Tenant = { tenant: Slug };
const Source = { ...Tenant, source: Slug };

/** A secret as written: no CR, LF or NUL, at most 8 KiB. Write-only: answers show `{ "set": true }`. */
const SecretValueSchema = z
  .string()
  .min(1)
  .max(8192)
  .regex(/^[^\r\n\0]*$/, 'a secret has no CR, LF or NUL');

/** A secret in a write: a value sets it, `{ "set": true }` keeps the stored one (so a read can be written back). */
const SecretWriteSchema = z.union([SecretValueSchema, HttpHeaderSetSchema]);

const SECRETS_MAX = 16;
const secretRecord = <V extends z.ZodType>(key: z.ZodString, value: V) =>
  z.record(key, value).refine((entries) => Object.keys(entries).length <= SECRETS_MAX, `at most ${SECRETS_MAX} entries`);

/** A query parameter name: URL-safe characters only. */
const QueryNameSchema = z.string().regex(/^[A-Za-z0-9._~-]{1,128}$/, 'a query parameter name: letters, digits and . _ ~ -');

/**
 * How the platform authenticates to a remote upstream. Every value is a secret: sealed at rest,
 * write-only here, sent only to the upstream. `client-credentials`: OAuth 2.1 `client_credentials`
 * against the authorization server the upstream's protected resource metadata names (RFC 9728).
 */
export const UpstreamAuthSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('none') }),
  z.object({ kind: z.literal('headers'), headers: secretRecord(HttpHeaderNameSchema, SecretWriteSchema) }),
  z.object({ kind: z.literal('query'), params: secretRecord(QueryNameSchema, SecretWriteSchema) }),
  z.object({
    kind: z.literal('client-credentials'),
    clientId: z.string().min(1).max(512),
    clientSecret: SecretWriteSchema,
    scope: z.string().max(1024).optional(),
  }),
]);
export type UpstreamAuthInput = z.input<typeof UpstreamAuthSchema>;
export type UpstreamAuthRecord = z.output<typeof UpstreamAuthSchema>;

/** The same, as every answer shows it: names and ids, never a secret. */
export const UpstreamAuthViewSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('none') }),
  z.object({ kind: z.literal('headers'), headers: z.record(z.string(), HttpHeaderSetSchema) }),
  z.object({ kind: z.literal('query'), params: z.record(z.string(), HttpHeaderSetSchema) }),
  z.object({ kind: z.literal('client-credentials'), clientId: z.string(), clientSecret: HttpHeaderSetSchema, scope: z.string().optional() }),
]);

/** A stdio parameter's name in the operator's allow-list (`{{name}}` in its arguments and environment). */
export const StdioParamNameSchema = z.string().regex(/^[A-Za-z][A-Za-z0-9_]{0,63}$/, 'a parameter name: a letter, then letters, digits or _');

/**
 * Where the upstream is. `streamable-http`: an MCP endpoint of either era (the executor asks
 * `server/discover`, then falls back to `initialize`); `sse`: the deprecated HTTP+SSE transport of
 * 2024-11-05; `stdio`: an entry of the operator's allow-list (`UPSTREAM_STDIO_SERVERS`) with its
 * parameters filled in; a tenant never supplies a command.
 */
export const UpstreamConnectionSchema = z.discriminatedUnion('transport', [
  z.object({
    transport: z.literal('streamable-http'),
    url: z.string().url().max(2048).describe('The MCP endpoint, http or https; reached through the SSRF guard'),
    auth: UpstreamAuthSchema.default({ kind: 'none' }),
  }),
  z.object({
    transport: z.literal('sse'),
    url: z.string().url().max(2048).describe('The SSE endpoint of an HTTP+SSE server (2024-11-05), http or https'),
    auth: UpstreamAuthSchema.default({ kind: 'none' }),
  }),
  z.object({
    transport: z.literal('stdio'),
    server: Slug.describe('The name of an entry of the operator allow-list'),
    params: secretRecord(StdioParamNameSchema, z.union([z.string().max(4096), HttpHeaderSetSchema]))
      .default({})
      .describe("Values of the entry's parameters; a secret parameter is write-only"),
  }),
]);

/** The same, as every answer shows it. */
export const UpstreamConnectionViewSchema = z.discriminatedUnion('transport', [
  z.object({ transport: z.literal('streamable-http'), url: z.string(), auth: UpstreamAuthViewSchema }),
  z.object({ transport: z.literal('sse'), url: z.string(), auth: UpstreamAuthViewSchema }),
  z.object({ transport: z.literal('stdio'), server: z.string(), params: z.record(z.string(), z.union([z.string(), HttpHeaderSetSchema])) }),
]);

/**
 * What happens to a definition the upstream starts to list or changes (rug-pull defence): `hold-all`,
 * every new or changed item waits for an administrator; `approve-new`, new items are approved, changed
 * ones wait; `approve-all`, everything is approved as observed. Every approval is audited.
 */
export const ApprovalPolicySchema = z.enum(['hold-all', 'approve-new', 'approve-all']);
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

/** An upstream tool name as the catalog exposes it: `<prefix>__<name>` (S-181's characters), or the upstream's own name without a prefix. */
export const UPSTREAM_PREFIX_SEPARATOR = '__';

/** A source as an administrator writes it. */
export const UpstreamSourceDefinitionSchema = z.object({
  name: Slug,
  title: z.string().max(256).optional(),
  connection: UpstreamConnectionSchema,
  /**
   * What the source's tools are called in the catalog: `<prefix>__<upstream name>`. Absent: the source's
   * name; `null`: no prefix (the upstream's names as they are; a name another tool holds is refused).
   */
  prefix: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,32}$/)
    .nullable()
    .optional(),
  policy: ApprovalPolicySchema.default('hold-all'),
  /** Upper bound of one call to the upstream, in milliseconds (default 60 s). */
  timeoutMs: z
    .number()
    .int()
    .positive()
    .max(15 * 60_000)
    .optional(),
  /** A disabled source keeps its items but is not connected, and its tools are neither listed nor callable. */
  enabled: z.boolean().default(true),
  /**
   * The virtual servers that get the source's approved prompts, resources and resource templates (the
   * resource store serves them); empty: every server of the tenant, as for the store's own items. Tools
   * are picked per virtual server, like any tool.
   */
  servers: z.array(Slug).max(1000).default([]),
});
export type UpstreamSourceDefinitionInput = z.input<typeof UpstreamSourceDefinitionSchema>;
export type UpstreamSourceDefinitionRecord = z.output<typeof UpstreamSourceDefinitionSchema>;

/**
 * How the executor's connection to the source fares: `connected`; `degraded` (it answers, but its
 * last call failed or a limit cut its catalog); `failing` (it cannot be reached or initialized; the
 * executor retries with backoff); `circuit-open` (after repeated failures calls are refused at once
 * until the next probe); `disabled`; `unknown` (never connected yet).
 */
export const UpstreamHealthStateSchema = z.enum(['unknown', 'connected', 'degraded', 'failing', 'circuit-open', 'disabled']);
export type UpstreamHealthState = z.infer<typeof UpstreamHealthStateSchema>;

export const UpstreamHealthSchema = z.object({
  state: UpstreamHealthStateSchema,
  /** When the state was entered (ISO 8601). */
  since: z.string(),
  /** The last failure, for administrators (it may name hosts): what the callers saw only by error id. */
  lastError: z.object({ at: z.string(), errorId: z.string(), detail: z.string() }).optional(),
  /** What the upstream said of itself at the last connection. */
  era: z.enum(['legacy', 'modern']).optional(),
  protocolVersion: z.string().optional(),
  serverInfo: z.object({ name: z.string(), version: z.string() }).optional(),
  /** When the executor last read the upstream's catalog (ISO 8601). */
  syncedAt: z.string().optional(),
});
export type UpstreamHealth = z.infer<typeof UpstreamHealthSchema>;

/** A source as the admin API shows it: its definition (secrets only as set), its health and its items by status. */
export const UpstreamSourceViewSchema = UpstreamSourceDefinitionSchema.omit({ connection: true }).extend({
  connection: UpstreamConnectionViewSchema,
  health: UpstreamHealthSchema,
  items: z.object({ approved: z.number().int(), held: z.number().int(), removed: z.number().int() }),
});
export type UpstreamSourceView = z.output<typeof UpstreamSourceViewSchema>;

/**
 * An item's pin: `approved` (listed and callable, as approved); `held-new` (the upstream lists it, nobody
 * approved it: not listed); `held-changed` (its definition differs from the approved one: not listed, calls
 * refused, until approved); `removed` (the upstream no longer lists it); `refused` (it cannot be served:
 * its schema does not compile, its name is taken; `reason` says why).
 */
export const UpstreamItemStatusSchema = z.enum(['approved', 'held-new', 'held-changed', 'removed', 'refused']);
export type UpstreamItemStatus = z.infer<typeof UpstreamItemStatusSchema>;

/** One JSON Patch operation (RFC 6902) from the approved definition to the observed one. */
export const DefinitionChangeSchema = z.object({
  op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
  path: z.string(),
  value: z.unknown().optional(),
  from: z.string().optional(),
});

/** A `sha256:<hex>` digest of a definition in RFC 8785 canonical JSON. */
export const DefinitionDigestSchema = z.string().regex(/^sha256:[0-9a-f]{64}$/);

/**
 * What an upstream item is. A tool is served by the executor's catalog; a prompt, resource, resource
 * template or skill (the skills extension, SEP-2640: named by the URI of its `SKILL.md`) by the resource
 * store (`resourceStore.putUpstreamItems`), which asks the executor to read, render or complete it.
 */
export const UpstreamItemKindSchema = z.enum(['tool', 'prompt', 'resource', 'resource-template', 'skill']);
export type UpstreamItemKind = z.infer<typeof UpstreamItemKindSchema>;

export const UpstreamItemViewSchema = z.object({
  kind: UpstreamItemKindSchema,
  /** The upstream's own name (a resource's: its URI; a skill's: its `SKILL.md` URI). */
  name: z.string(),
  /** The name clients see: `<prefix>__<name>` for tools, prompts and templates; a resource and a skill keep their URI. */
  exposedName: z.string(),
  status: UpstreamItemStatusSchema,
  reason: z.string().optional(),
  observedDigest: DefinitionDigestSchema.optional(),
  approvedDigest: DefinitionDigestSchema.optional(),
  observed: z.record(z.string(), z.unknown()).optional(),
  approved: z.record(z.string(), z.unknown()).optional(),
  /** For `held-changed`: what changed, approved → observed. */
  diff: z.array(DefinitionChangeSchema).optional(),
  approvedAt: z.string().optional(),
  approvedBy: z.string().optional(),
});
export type UpstreamItemView = z.output<typeof UpstreamItemViewSchema>;

/** One audited decision on an item. */
export const UpstreamApprovalSchema = z.object({
  at: z.string(),
  source: z.string(),
  kind: UpstreamItemKindSchema,
  item: z.string(),
  /** Who decided: an administrator's subject, or `policy:<policy>` for an automatic approval. */
  actor: z.string(),
  digest: DefinitionDigestSchema,
  previousDigest: DefinitionDigestSchema.optional(),
});
export type UpstreamApproval = z.output<typeof UpstreamApprovalSchema>;

/** A stdio server an operator allows, as tenant admins see it: what to fill in, never the command. */
export const StdioServerViewSchema = z.object({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  params: z.record(z.string(), z.object({ description: z.string().optional(), secret: z.boolean(), required: z.boolean() })),
});

/** Every source of the tenant, ordered by name. */
export const listUpstreams = defineRpc({
  subject: 'tool-executor.v1.upstream.list',
  request: z.object(Tenant),
  response: z.object({ sources: z.array(UpstreamSourceViewSchema) }),
});

export const getUpstream = defineRpc({
  subject: 'tool-executor.v1.upstream.get',
  request: z.object(Source),
  response: UpstreamSourceViewSchema,
});

/**
 * Creates or replaces a source, then connects to it and reads its catalog (the answer shows the health
 * this gave). A source that cannot be reached is stored all the same, `failing`.
 */
export const putUpstream = defineRpc({
  subject: 'tool-executor.v1.upstream.put',
  request: z.object({ ...Tenant, upstream: UpstreamSourceDefinitionSchema }),
  response: z.object({ created: z.boolean(), upstream: UpstreamSourceViewSchema }),
  timeoutMs: 60_000,
});

/** Deletes a source with its tools (virtual servers stop exposing them) and closes its connections. */
export const deleteUpstream = defineRpc({
  subject: 'tool-executor.v1.upstream.delete',
  request: z.object(Source),
  response: z.object({ deleted: z.literal(true) }),
});

/** Reads the source's catalog again now (as an upstream `list_changed` does). */
export const refreshUpstream = defineRpc({
  subject: 'tool-executor.v1.upstream.refresh',
  request: z.object(Source),
  response: UpstreamSourceViewSchema,
  timeoutMs: 60_000,
});

/** The source's items with their pins and, for changed ones, the diff. */
export const listUpstreamItems = defineRpc({
  subject: 'tool-executor.v1.upstream-item.list',
  request: z.object(Source),
  response: z.object({ items: z.array(UpstreamItemViewSchema) }),
});

/**
 * Approves items as observed. Each names the digest the administrator reviewed: an item whose observed
 * digest is another by now is refused with `DIGEST_CHANGED` (nothing is approved), so a definition changed during review
 * is never approved unseen. `actor` is the administrator's subject, kept in the audit.
 */
export const approveUpstreamItems = defineRpc({
  subject: 'tool-executor.v1.upstream-item.approve',
  request: z.object({
    ...Source,
    actor: z.string().min(1).max(256),
    items: z
      .array(z.object({ kind: UpstreamItemKindSchema.default('tool'), name: z.string().min(1).max(2048), digest: DefinitionDigestSchema }))
      .min(1)
      .max(1000),
  }),
  response: z.object({ items: z.array(UpstreamItemViewSchema) }),
});

/** The audit of a source's approvals, newest first. */
export const listUpstreamApprovals = defineRpc({
  subject: 'tool-executor.v1.upstream-approval.list',
  request: z.object(Source),
  response: z.object({ approvals: z.array(UpstreamApprovalSchema) }),
});

/** The stdio servers the operator allows, for tenant admins to pick from. */
export const listStdioServers = defineRpc({
  subject: 'tool-executor.v1.stdio-server.list',
  request: z.object(Tenant),
  response: z.object({ servers: z.array(StdioServerViewSchema) }),
});
