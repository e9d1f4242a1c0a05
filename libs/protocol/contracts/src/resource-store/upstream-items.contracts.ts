import { SkillSchema } from '@modelcontextprotocol/core/ext/skills';
import { z } from 'zod';
import { PromptSchema, ResourceSchema, ResourceTemplateSchema } from '@mcp-platform/protocol-mcp';
import { TENANT_SLUG_PATTERN } from '../common/tenant';
import { defineRpc } from '../define-contract';

/**
 * The approved prompts, resources, resource templates and skills of one upstream MCP server (issue 15 §3), as
 * the tool executor, which pins them, hands them to the store to serve. The store keeps them beside its
 * own items, marked with their source: they are listed like any item of the virtual servers named, and
 * a read, a `prompts/get` or a completion of one goes to the executor (`toolExecutor.readUpstreamResource`,
 * `getUpstreamPrompt`, `completeUpstream`). The administrators' write paths cannot change them.
 */

const Slug = z.string().regex(TENANT_SLUG_PATTERN);

/** An upstream prompt as clients list it (`name`: the exposed name, `<prefix>__<name>`) and its name upstream. */
export const UpstreamPromptSchema = z.object({ prompt: PromptSchema, upstreamName: z.string().min(1).max(256) });

/** An upstream resource as clients list it: its URI is the upstream's own. */
export const UpstreamResourceSchema = z.object({ resource: ResourceSchema });

/** An upstream resource template as clients list it (`name`: the exposed name) and its name upstream. */
export const UpstreamResourceTemplateSchema = z.object({ resourceTemplate: ResourceTemplateSchema, upstreamName: z.string().min(1).max(256) });

/**
 * An upstream skill (SEP-2640) as clients list it: its entry of the upstream's `skills/list`, URIs as
 * the upstream gave them. Its files become the store's resources (a read goes to the upstream).
 */
export const UpstreamSkillSchema = z.object({ skill: SkillSchema });

/** Which kind of item a refusal names. */
export const UpstreamServedKindSchema = z.enum(['prompt', 'resource', 'resource-template', 'skill']);

/**
 * Replaces everything the store serves for the source by these items (empty lists: the source serves
 * nothing, e.g. it was deleted or disabled). An item whose exposed name (or a resource's URI) the
 * tenant's own items or another source already hold is not served: it comes back in `refused` with
 * the reason, and the executor shows it as `refused`. Changed lists are announced (`listChanged`).
 */
export const putUpstreamItems = defineRpc({
  subject: 'resource-store.v1.upstream-items.put',
  request: z.object({
    tenant: Slug,
    sourceId: z.string().uuid(),
    /** The source's name, for the store's logs and refusals. */
    source: Slug,
    /** The virtual servers that get the items; empty: every server of the tenant. */
    servers: z.array(Slug).max(1000),
    prompts: z.array(UpstreamPromptSchema).max(1000),
    resources: z.array(UpstreamResourceSchema).max(1000),
    resourceTemplates: z.array(UpstreamResourceTemplateSchema).max(1000),
    skills: z.array(UpstreamSkillSchema).max(1000).default([]),
  }),
  response: z.object({
    changed: z.boolean(),
    refused: z.array(z.object({ kind: UpstreamServedKindSchema, name: z.string(), reason: z.string() })),
  }),
});
