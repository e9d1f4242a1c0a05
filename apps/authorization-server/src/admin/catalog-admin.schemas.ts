import { z } from 'zod';
import { toolExecutor } from '@mcp-platform/protocol-contracts';

/**
 * Bodies and answers of the catalog routes (virtual servers and tools), built from the catalog
 * administration contracts so the admin API accepts exactly what the tool executor stores.
 */

export { TenantSlugSchema } from './identity-admin.schemas';

/** A virtual server's name in a path: the contract's slug. */
export const ServerNameSchema = toolExecutor.VirtualServerDefinitionSchema.shape.name;

const ToolFieldsSchema = toolExecutor.ToolDefinitionSchema.def.left;

/** A tool's name in a path: the contract's MCP tool name (S-181). */
export const ToolNameSchema = ToolFieldsSchema.shape.name;

/** A virtual server as written through the API: the contract's definition without its name (the path names it). */
export const VirtualServerBodySchema = toolExecutor.VirtualServerDefinitionSchema.omit({ name: true });
export type VirtualServerBody = z.output<typeof VirtualServerBodySchema>;

/** A virtual server as the API shows it: its definition and its MCP URL (the token audience of its callers). */
export const VirtualServerViewSchema = toolExecutor.VirtualServerDefinitionSchema.extend({
  /** `${MCP_PUBLIC_URL}/<tenant>/<server>/mcp`. */
  url: z.string(),
});
export type VirtualServerView = z.output<typeof VirtualServerViewSchema>;

export const VirtualServerListSchema = z.object({ servers: z.array(VirtualServerViewSchema) });
export type VirtualServerList = z.output<typeof VirtualServerListSchema>;

/** The answer of a put: whether it created the server (or replaced it), and the server as stored. */
export const VirtualServerPutResultSchema = z.object({ created: z.boolean(), server: VirtualServerViewSchema });
export type VirtualServerPutResult = z.output<typeof VirtualServerPutResultSchema>;

/** A tool as written through the API: the contract's definition without its name (the path names it). */
export const ToolBodySchema = ToolFieldsSchema.omit({ name: true }).and(toolExecutor.ToolRunnerSchema);
export type ToolBody = z.output<typeof ToolBodySchema>;

/** A tool as the API shows it: the contract's view (the definition, and the last outbound failure of an HTTP tool). */
export const ToolViewSchema = toolExecutor.ToolDefinitionViewSchema;
export type ToolView = z.output<typeof ToolViewSchema>;

export const ToolListSchema = z.object({ tools: z.array(ToolViewSchema) });
export type ToolList = z.output<typeof ToolListSchema>;

/** The answer of a put: whether it created the tool (or replaced it), and the tool as stored. */
export const ToolPutResultSchema = z.object({ created: z.boolean(), tool: ToolViewSchema });
export type ToolPutResult = z.output<typeof ToolPutResultSchema>;
