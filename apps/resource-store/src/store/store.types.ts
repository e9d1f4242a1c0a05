import { resourceStore } from '@mcp-platform/protocol-contracts';

/**
 * The definition schemas the store validates every write with. They live in the contracts
 * (`resource-admin.contracts.ts`) so the admin API checks and documents exactly what the store accepts.
 */

/** A JSON object as stored in jsonb columns. */
export type JsonObject = Record<string, unknown>;

export const CompletionSourceSchema = resourceStore.CompletionSourceSchema;
export type CompletionSource = resourceStore.CompletionSource;
export const ResourceDefinitionSchema = resourceStore.ResourceDefinitionSchema;
export type ResourceDefinition = resourceStore.ResourceDefinition;
export const ResourceTemplateDefinitionSchema = resourceStore.ResourceTemplateDefinitionSchema;
export type ResourceTemplateDefinition = resourceStore.ResourceTemplateDefinition;
export const PromptArgumentDefinitionSchema = resourceStore.PromptArgumentDefinitionSchema;
export type PromptArgumentDefinition = resourceStore.PromptArgumentDefinition;
export type PromptInputDefinition = resourceStore.PromptInputDefinition;
export const PromptMessageDefinitionSchema = resourceStore.PromptMessageDefinitionSchema;
export type PromptMessageDefinition = resourceStore.PromptMessageDefinition;
export const PromptDefinitionSchema = resourceStore.PromptDefinitionSchema;
export type PromptDefinition = resourceStore.PromptDefinition;

/**
 * Where an upstream item comes from (`putUpstreamItems`): the tool executor's source (its id and name)
 * and the item's name there (a prompt's or template's own name, without the prefix; a resource's URI).
 * `null` in the `upstream` column: one of the store's own items.
 */
export interface UpstreamOrigin {
  sourceId: string;
  source: string;
  name: string;
}
