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
export const ResourceBodySchema = resourceStore.ResourceFieldsSchema.omit({ uri: true }).refine(resourceStore.hasOneContent, { message: 'exactly one of text and blob' });
export type ResourceBody = z.output<typeof ResourceBodySchema>;

/** A resource as the API shows it: its definition with its content and its size in bytes. */
export const ResourceViewSchema = resourceStore.StoredResourceSchema;
export type ResourceView = z.output<typeof ResourceViewSchema>;

/** The resources of a tenant, without content. */
export const ResourceListSchema = z.object({ resources: z.array(resourceStore.ResourceSummarySchema) });
export type ResourceList = z.output<typeof ResourceListSchema>;

/** The answer of a put: whether it created the resource (or replaced it), and the resource as stored. */
export const ResourcePutResultSchema = z.object({ created: z.boolean(), resource: ResourceViewSchema });
export type ResourcePutResult = z.output<typeof ResourcePutResultSchema>;

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
