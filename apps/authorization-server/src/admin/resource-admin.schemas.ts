import { z } from 'zod';
import { resourceStore } from '@mcp-platform/protocol-contracts';

/**
 * Bodies and answers of the resource routes (resources, resource templates, prompts), built from the
 * resource store's definition schemas (`resource-admin.contracts.ts`) so the admin API accepts and
 * documents exactly what the store validates.
 */

export { TenantSlugSchema } from './identity-admin.schemas';

/** A resource's URI, in the `uri` query parameter (a URI does not fit one path segment). */
export const ResourceUriSchema = resourceStore.ResourceUriSchema;

/** A resource as written through the API: the contract's definition without its URI (the query names it). */
export const ResourceBodySchema = resourceStore.ResourceFieldsSchema.omit({ uri: true }).refine(resourceStore.hasOneContent, {
  message: 'exactly one of text and blob',
});
export type ResourceBody = z.output<typeof ResourceBodySchema>;

/** A resource as the API shows it: its definition with its content (left out over 512 KiB) and its size in bytes. */
export const ResourceViewSchema = resourceStore.StoredResourceSchema;
export type ResourceView = z.output<typeof ResourceViewSchema>;

/** The resources of a tenant, without content. */
export const ResourceListSchema = z.object({ resources: z.array(resourceStore.ResourceSummarySchema) });
export type ResourceList = z.output<typeof ResourceListSchema>;

/** The answer of a put: whether it created the resource (or replaced it), and the resource as stored. */
export const ResourcePutResultSchema = z.object({ created: z.boolean(), resource: ResourceViewSchema });
export type ResourcePutResult = z.output<typeof ResourcePutResultSchema>;

/** A comma-separated list of the tenant's virtual servers in a query parameter (`servers=a,b`; empty: every server). */
export const ServerListQuerySchema = z
  .string()
  .max(100 * 66)
  .transform((list) =>
    list
      .split(',')
      .map((server) => server.trim())
      .filter((server) => server !== ''),
  )
  .pipe(resourceStore.ServerNamesSchema);

/**
 * The optional query parameters of a raw upload (`PUT …/resources/by-uri/content`): the content's
 * media type (else the request's `Content-Type`) and the resource's metadata. A new resource needs
 * `name`; for an existing one, what is given replaces its own and the rest is kept.
 */
export const ResourceUploadQuerySchema = z.object({
  mimeType: resourceStore.ResourceFieldsSchema.shape.mimeType.describe(
    "The content's media type; default: the request's Content-Type, else application/octet-stream",
  ),
  name: resourceStore.ResourceFieldsSchema.shape.name.optional().describe('Required for a new resource'),
  title: resourceStore.ResourceFieldsSchema.shape.title,
  description: resourceStore.ResourceFieldsSchema.shape.description,
  servers: ServerListQuerySchema.optional().describe('Comma-separated names of the virtual servers exposing it; empty: every server of the tenant'),
});
export type ResourceUploadQuery = z.output<typeof ResourceUploadQuerySchema>;

/** The answer of a raw upload: whether it created the resource, and the resource as stored, without its content. */
export const ResourceUploadResultSchema = z.object({ created: z.boolean(), resource: resourceStore.ResourceSummarySchema });
export type ResourceUploadResult = z.output<typeof ResourceUploadResultSchema>;

/** A resource template's or a prompt's name in a path. */
export const ItemNameSchema = resourceStore.ResourceTemplateFieldsSchema.shape.name;

/** A resource template as written through the API: the contract's definition without its name (the path names it). */
export const ResourceTemplateBodySchema = resourceStore.ResourceTemplateFieldsSchema.omit({ name: true }).superRefine(resourceStore.checkUriTemplate);
export type ResourceTemplateBody = z.output<typeof ResourceTemplateBodySchema>;

export const ResourceTemplateViewSchema = resourceStore.ResourceTemplateFieldsSchema;
export type ResourceTemplateView = z.output<typeof ResourceTemplateViewSchema>;

export const ResourceTemplateListSchema = z.object({ resourceTemplates: z.array(ResourceTemplateViewSchema) });
export type ResourceTemplateList = z.output<typeof ResourceTemplateListSchema>;

export const ResourceTemplatePutResultSchema = z.object({ created: z.boolean(), resourceTemplate: ResourceTemplateViewSchema });
export type ResourceTemplatePutResult = z.output<typeof ResourceTemplatePutResultSchema>;

/** A prompt as written through the API: the contract's definition without its name (the path names it). */
export const PromptBodySchema = resourceStore.PromptDefinitionSchema.omit({ name: true });
export type PromptBody = z.output<typeof PromptBodySchema>;

export const PromptViewSchema = resourceStore.PromptDefinitionSchema;
export type PromptView = z.output<typeof PromptViewSchema>;

export const PromptListSchema = z.object({ prompts: z.array(PromptViewSchema) });
export type PromptList = z.output<typeof PromptListSchema>;

export const PromptPutResultSchema = z.object({ created: z.boolean(), prompt: PromptViewSchema });
export type PromptPutResult = z.output<typeof PromptPutResultSchema>;
