import { z } from 'zod';
import { ResourceSchema } from '@mcp-platform/protocol-mcp';
import { TENANT_SLUG_PATTERN } from '../common/tenant';
import { defineRpc } from '../define-contract';
import { parseUriTemplate } from './uri-template';

/**
 * The resource store's catalog as its administrators see it: resources (text or base64 bytes),
 * resource templates and prompts of a tenant (the admin API of the authorization server calls these;
 * DESIGN.md §3). The definition schemas are the ones the store validates every write with (its seed
 * included). Every change publishes `listChanged` (and `resourceUpdated` for a replaced or deleted
 * resource); an identical rewrite publishes nothing. Errors: `NOT_FOUND` for an unknown item;
 * `INVALID_PARAMS` for a definition the store refuses (`data.issues`) and for content that would take
 * the tenant over its quota (`data: { quotaBytes, usedBytes, requestedBytes }`).
 */

/**
 * The largest content one definition write carries, in bytes (text in UTF-8, blobs decoded). A request
 * crosses NATS in one message (1 MiB by default), and a blob's base64 is 4/3 of its bytes. Larger
 * content is uploaded in chunks (`resource-upload.contracts.ts`) up to the store's own per-resource
 * limit; the tenant quota applies on top.
 */
export const MAX_RESOURCE_CONTENT_BYTES = 512 * 1024;

const Slug = z.string().regex(TENANT_SLUG_PATTERN, 'lowercase letters, digits and "-", at most 63, starting with a letter or digit');

/** Names of a tenant's virtual servers an item is on (resources, templates, prompts, skills); empty: every server. */
export const ServerNamesSchema = z.array(z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/)).max(100);

const ServerNames = ServerNamesSchema.default([]);

/**
 * Completion values of one argument: a plain list, or lists keyed by the value of an earlier
 * argument (`dependsOn`), picked with the request's `context.arguments` (S-226).
 */
export const CompletionSourceSchema = z.union([
  z.array(z.string().max(1024)).max(10_000),
  z.object({ dependsOn: z.string().min(1).max(256), byValue: z.record(z.string(), z.array(z.string().max(1024)).max(10_000)) }),
]);
export type CompletionSource = z.infer<typeof CompletionSourceSchema>;

/** A resource's URI: absolute (S-213). */
export const ResourceUriSchema = z
  .string()
  .min(1)
  .max(2048)
  .regex(/^[A-Za-z][A-Za-z0-9+.-]*:/, 'an absolute URI (S-213)');

/** The fields of a resource definition, before the text-or-blob rule (bodies derive from it). */
export const ResourceFieldsSchema = z.object({
  uri: ResourceUriSchema,
  name: z.string().min(1).max(256),
  title: z.string().max(256).optional(),
  description: z.string().max(8192).optional(),
  mimeType: z.string().min(1).max(256).optional(),
  annotations: ResourceSchema.shape.annotations,
  icons: ResourceSchema.shape.icons,
  text: z
    .string()
    .refine((text) => new TextEncoder().encode(text).length <= MAX_RESOURCE_CONTENT_BYTES, { message: `at most ${MAX_RESOURCE_CONTENT_BYTES} bytes of UTF-8` })
    .optional(),
  /** Base64 of the bytes (S-203); a binary upload is a write with `blob` and `mimeType`. */
  blob: z
    .base64()
    // One refusal for a blob far over the limit (`abort`), not the same message twice.
    .max(Math.ceil(MAX_RESOURCE_CONTENT_BYTES / 3) * 4, { message: `at most ${MAX_RESOURCE_CONTENT_BYTES} bytes (base64)`, abort: true })
    // The length bound alone lets up to two bytes more through; the decoded size is what counts.
    .refine((blob) => base64ByteLength(blob) <= MAX_RESOURCE_CONTENT_BYTES, { message: `at most ${MAX_RESOURCE_CONTENT_BYTES} bytes (base64)` })
    .optional(),
  servers: ServerNames,
});

/** How many bytes a (padded or unpadded) base64 text decodes to. */
export function base64ByteLength(base64: string): number {
  const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
  return Math.floor((base64.length * 3) / 4) - padding;
}

/** The rule every resource definition (and body) follows: exactly one of `text` and `blob`. */
export function hasOneContent(resource: { text?: string | undefined; blob?: string | undefined }): boolean {
  return (resource.text === undefined) !== (resource.blob === undefined);
}
const ONE_CONTENT = { message: 'exactly one of text and blob' };

/** A resource as an administrator (or the seed) writes it: text or base64 bytes, never both. */
export const ResourceDefinitionSchema = ResourceFieldsSchema.refine(hasOneContent, ONE_CONTENT);
export type ResourceDefinition = z.output<typeof ResourceDefinitionSchema>;

/** A resource as the store holds it: its definition and its content's size in bytes. */
export const StoredResourceSchema = ResourceFieldsSchema.extend({ size: z.number().int().nonnegative() });
export type StoredResourceRecord = z.output<typeof StoredResourceSchema>;

/** A resource in an administrator's list: everything but the content. */
export const ResourceSummarySchema = StoredResourceSchema.omit({ text: true, blob: true });
export type ResourceSummary = z.output<typeof ResourceSummarySchema>;

/** The fields of a resource template definition, before the template check. */
export const ResourceTemplateFieldsSchema = z.object({
  name: z.string().min(1).max(256),
  uriTemplate: z.string().min(1).max(2048),
  title: z.string().max(256).optional(),
  description: z.string().max(8192).optional(),
  mimeType: z.string().min(1).max(256).optional(),
  annotations: ResourceSchema.shape.annotations,
  icons: ResourceSchema.shape.icons,
  /** The read's text; `{var}` is replaced by the variable's value (JSON-escaped for JSON types). */
  text: z.string().max(1024 * 1024),
  completions: z.record(z.string(), CompletionSourceSchema).default({}),
  servers: ServerNames,
});

/** The check of every template definition (and body): a level-1 RFC 6570 template (S-204). */
export function checkUriTemplate(template: { uriTemplate: string }, context: z.RefinementCtx): void {
  try {
    parseUriTemplate(template.uriTemplate);
  } catch (error) {
    context.addIssue({ code: 'custom', path: ['uriTemplate'], message: (error as Error).message });
  }
}

/** A resource template as written: a level-1 RFC 6570 template and the text recipe of its reads. */
export const ResourceTemplateDefinitionSchema = ResourceTemplateFieldsSchema.superRefine(checkUriTemplate);
export type ResourceTemplateDefinition = z.output<typeof ResourceTemplateDefinitionSchema>;

/** One argument of a prompt, with the values `completion/complete` offers for it. */
export const PromptArgumentDefinitionSchema = z.object({
  name: z.string().min(1).max(256),
  description: z.string().max(8192).optional(),
  required: z.boolean().optional(),
  completionValues: CompletionSourceSchema.optional(),
});
export type PromptArgumentDefinition = z.infer<typeof PromptArgumentDefinitionSchema>;

/**
 * Message content recipes; `{{arg}}` in texts and embedded resource URIs is replaced by the argument, and a
 * section `{{#arg}}…{{/arg}}` is kept only when the argument is given and not empty (an optional argument's
 * words and punctuation go with it).
 */
export const PromptContentDefinitionSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image'), data: z.base64(), mimeType: z.string().min(1).max(256) }),
  z.object({
    type: z.literal('resource'),
    resource: z.object({ uri: z.string().min(1).max(2048), mimeType: z.string().min(1).max(256).optional(), text: z.string() }),
  }),
]);

/** One message of a prompt. */
export const PromptMessageDefinitionSchema = z.object({ role: z.enum(['user', 'assistant']), content: PromptContentDefinitionSchema });
export type PromptMessageDefinition = z.infer<typeof PromptMessageDefinitionSchema>;

/** A name an input's answer is known by in message recipes (`{{key.field}}`). */
const InputNameSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and -, at most 64');

/**
 * Something a prompt asks the user before it renders (SEP-2322 on `prompts/get`): a form elicitation
 * of flat primitive fields (S-318), asked of 2026-07-28 clients by an `input_required` result under
 * `key`. An accepted answer's fields fill `{{key.field}}` and keep `{{#key.field}}…{{/key.field}}`
 * sections; a declined or cancelled one, and a 2025-era session (which is not asked), render them empty.
 */
export const PromptInputDefinitionSchema = z.object({
  key: InputNameSchema,
  message: z.string().min(1).max(4096),
  requestedSchema: z.object({
    type: z.literal('object'),
    properties: z
      .record(InputNameSchema, z.looseObject({ type: z.enum(['string', 'number', 'integer', 'boolean']) }))
      .refine((properties) => Object.keys(properties).length > 0 && Object.keys(properties).length <= 32, 'one to 32 fields'),
    required: z.array(InputNameSchema).max(32).optional(),
  }),
});
export type PromptInputDefinition = z.infer<typeof PromptInputDefinitionSchema>;

/** A prompt as written; every prompt has a description (the conformance suite's prompts-list wants one). */
export const PromptDefinitionSchema = z.object({
  name: z.string().min(1).max(256),
  title: z.string().max(256).optional(),
  description: z.string().min(1).max(8192),
  icons: ResourceSchema.shape.icons,
  arguments: z.array(PromptArgumentDefinitionSchema).max(64).default([]),
  /** What the prompt asks the user before rendering, in order; keys unique. */
  inputs: z
    .array(PromptInputDefinitionSchema)
    .max(8)
    .default([])
    .refine((inputs) => new Set(inputs.map((input) => input.key)).size === inputs.length, 'input keys must be unique'),
  messages: z.array(PromptMessageDefinitionSchema).min(1).max(256),
  servers: ServerNames,
});
export type PromptDefinition = z.output<typeof PromptDefinitionSchema>;

const Tenant = { tenant: Slug };
const Deleted = z.object({ deleted: z.literal(true) });
const ItemName = z.string().min(1).max(256);

/** Every resource of a tenant, by URI, without content. */
export const listResourceDefinitions = defineRpc({
  subject: 'resource-store.v1.resource-definition.list',
  request: z.object(Tenant),
  response: z.object({ resources: z.array(ResourceSummarySchema) }),
});

/**
 * One resource of a tenant with its content and size; `NOT_FOUND` when absent. Content over
 * `MAX_RESOURCE_CONTENT_BYTES` (an upload's) does not fit one answer: it is left out, `size` says how
 * large it is, and `readResourceDefinitionChunk` reads it.
 */
export const getResourceDefinition = defineRpc({
  subject: 'resource-store.v1.resource-definition.get',
  request: z.object({ ...Tenant, uri: ResourceUriSchema }),
  response: StoredResourceSchema,
});

/**
 * Creates or replaces a resource (by URI). Not validated here beyond an object: the store answers
 * `INVALID_PARAMS` with the issues of what `ResourceDefinitionSchema` refuses, and the quota refusal.
 */
export const putResourceDefinition = defineRpc({
  subject: 'resource-store.v1.resource-definition.put',
  request: z.object({ ...Tenant, resource: z.record(z.string(), z.unknown()) }),
  response: z.object({ created: z.boolean(), resource: StoredResourceSchema }),
});

/** Deletes a resource; `NOT_FOUND` when absent. */
export const deleteResourceDefinition = defineRpc({
  subject: 'resource-store.v1.resource-definition.delete',
  request: z.object({ ...Tenant, uri: ResourceUriSchema }),
  response: Deleted,
});

/** Every resource template of a tenant, by name. */
export const listResourceTemplateDefinitions = defineRpc({
  subject: 'resource-store.v1.resource-template-definition.list',
  request: z.object(Tenant),
  response: z.object({ resourceTemplates: z.array(ResourceTemplateFieldsSchema) }),
});

/** One resource template of a tenant (by name); `NOT_FOUND` when absent. */
export const getResourceTemplateDefinition = defineRpc({
  subject: 'resource-store.v1.resource-template-definition.get',
  request: z.object({ ...Tenant, name: ItemName }),
  response: ResourceTemplateFieldsSchema,
});

/** Creates or replaces a resource template (by name); a malformed URI template is `INVALID_PARAMS`. */
export const putResourceTemplateDefinition = defineRpc({
  subject: 'resource-store.v1.resource-template-definition.put',
  request: z.object({ ...Tenant, resourceTemplate: z.record(z.string(), z.unknown()) }),
  response: z.object({ created: z.boolean(), resourceTemplate: ResourceTemplateFieldsSchema }),
});

/** Deletes a resource template; `NOT_FOUND` when absent. */
export const deleteResourceTemplateDefinition = defineRpc({
  subject: 'resource-store.v1.resource-template-definition.delete',
  request: z.object({ ...Tenant, name: ItemName }),
  response: Deleted,
});

/** Every prompt of a tenant with its messages, by name. */
export const listPromptDefinitions = defineRpc({
  subject: 'resource-store.v1.prompt-definition.list',
  request: z.object(Tenant),
  response: z.object({ prompts: z.array(PromptDefinitionSchema) }),
});

/** One prompt of a tenant; `NOT_FOUND` when absent. */
export const getPromptDefinition = defineRpc({
  subject: 'resource-store.v1.prompt-definition.get',
  request: z.object({ ...Tenant, name: ItemName }),
  response: PromptDefinitionSchema,
});

/** Creates or replaces a prompt (by name). */
export const putPromptDefinition = defineRpc({
  subject: 'resource-store.v1.prompt-definition.put',
  request: z.object({ ...Tenant, prompt: z.record(z.string(), z.unknown()) }),
  response: z.object({ created: z.boolean(), prompt: PromptDefinitionSchema }),
});

/** Deletes a prompt; `NOT_FOUND` when absent. */
export const deletePromptDefinition = defineRpc({
  subject: 'resource-store.v1.prompt-definition.delete',
  request: z.object({ ...Tenant, name: ItemName }),
  response: Deleted,
});

/**
 * Deletes everything the store holds of a tenant (resources, resource templates, prompts, skills,
 * uploads in progress), when the tenant is deleted: its data lives under its slug, and a tenant created later with
 * the same slug must start empty. Idempotent (a tenant with nothing left answers the same). Every
 * replica hears `listChanged` for the tenant, so no cached read of it is served again.
 */
export const deleteTenantContent = defineRpc({
  subject: 'resource-store.v1.tenant-content.delete',
  request: z.object(Tenant),
  response: z.object({
    resources: z.number().int().nonnegative(),
    resourceTemplates: z.number().int().nonnegative(),
    prompts: z.number().int().nonnegative(),
    /** Added with skills (a store predating them leaves it out). */
    skills: z.number().int().nonnegative().optional(),
  }),
});
