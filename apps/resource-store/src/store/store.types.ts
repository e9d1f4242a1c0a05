import { z } from 'zod';
import { ResourceSchema } from '@mcp-platform/protocol-mcp';
import { parseUriTemplate } from '../resources/uri-template';

/** A JSON object as stored in jsonb columns. */
export type JsonObject = Record<string, unknown>;

const ServerNames = z.array(z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/)).max(100).default([]);

/**
 * Completion values of one argument: a plain list, or lists keyed by the value of an earlier
 * argument (`dependsOn`), picked with the request's `context.arguments` (S-226).
 */
export const CompletionSourceSchema = z.union([
  z.array(z.string().max(1024)).max(10_000),
  z.object({ dependsOn: z.string().min(1).max(256), byValue: z.record(z.string(), z.array(z.string().max(1024)).max(10_000)) }),
]);
export type CompletionSource = z.infer<typeof CompletionSourceSchema>;

/** A resource as an administrator (or the seed) writes it: text or base64 bytes, never both. */
export const ResourceDefinitionSchema = z
  .object({
    uri: z.string().min(1).max(2048).regex(/^[A-Za-z][A-Za-z0-9+.-]*:/, 'an absolute URI (S-213)'),
    name: z.string().min(1).max(256),
    title: z.string().max(256).optional(),
    description: z.string().max(8192).optional(),
    mimeType: z.string().min(1).max(256).optional(),
    annotations: ResourceSchema.shape.annotations,
    icons: ResourceSchema.shape.icons,
    text: z.string().optional(),
    /** Base64 of the bytes (S-203). */
    blob: z.base64().optional(),
    servers: ServerNames,
  })
  .refine((resource) => (resource.text === undefined) !== (resource.blob === undefined), { message: 'exactly one of text and blob' });
export type ResourceDefinition = z.output<typeof ResourceDefinitionSchema>;

/** A resource template as written: a level-1 RFC 6570 template and the text recipe of its reads. */
export const ResourceTemplateDefinitionSchema = z
  .object({
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
  })
  .superRefine((template, context) => {
    try {
      parseUriTemplate(template.uriTemplate);
    } catch (error) {
      context.addIssue({ code: 'custom', path: ['uriTemplate'], message: (error as Error).message });
    }
  });
export type ResourceTemplateDefinition = z.output<typeof ResourceTemplateDefinitionSchema>;

/** One argument of a prompt, with the values `completion/complete` offers for it. */
export const PromptArgumentDefinitionSchema = z.object({
  name: z.string().min(1).max(256),
  description: z.string().max(8192).optional(),
  required: z.boolean().optional(),
  completionValues: CompletionSourceSchema.optional(),
});
export type PromptArgumentDefinition = z.infer<typeof PromptArgumentDefinitionSchema>;

/** Message content recipes; `{{arg}}` in texts and embedded resource URIs is replaced by the argument. */
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

/** A prompt as written; every prompt has a description (the conformance suite's prompts-list wants one). */
export const PromptDefinitionSchema = z.object({
  name: z.string().min(1).max(256),
  title: z.string().max(256).optional(),
  description: z.string().min(1).max(8192),
  icons: ResourceSchema.shape.icons,
  arguments: z.array(PromptArgumentDefinitionSchema).max(64).default([]),
  messages: z.array(PromptMessageDefinitionSchema).min(1).max(256),
  servers: ServerNames,
});
export type PromptDefinition = z.output<typeof PromptDefinitionSchema>;
