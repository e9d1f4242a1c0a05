import { z } from 'zod';
import { toolExecutor } from '@mcp-platform/protocol-contracts';

/**
 * Bodies and answers of the upstream routes (issue 15: upstream MCP servers as tool sources), built
 * from the tool executor's upstream administration contracts (`upstream-admin.contracts.ts`), so the
 * admin API accepts exactly what the executor stores and documents exactly what it answers.
 */

export { TenantSlugSchema } from './identity-admin.schemas';

const Definition = toolExecutor.UpstreamSourceDefinitionSchema;

/** An upstream source's name in a path: the contract's slug. */
export const UpstreamSourceNameSchema = Definition.shape.name;

/**
 * A source as written through the API: the contract's definition without its name (the path names it),
 * each field described for the administrator reading the OpenAPI document.
 */
export const UpstreamSourceBodySchema = Definition.omit({ name: true }).extend({
  title: Definition.shape.title.describe('A display name for administrators'),
  connection: Definition.shape.connection.describe(
    'Where the upstream MCP server is: `streamable-http` (either protocol era) or `sse` (the 2024-11-05 HTTP+SSE transport) with its URL and how the platform authenticates to it (`none`, `headers`, `query` or OAuth `client-credentials`); or `stdio`, an entry of the operator allow-list (`GET …/stdio-servers`) with its parameters. ' +
      'Secrets (header and query values, the client secret, secret stdio parameters) are write-only: answers show `{ "set": true }` in their place, and writing `{ "set": true }` back keeps the stored value.',
  ),
  prefix: Definition.shape.prefix.describe(
    "The catalog names of the source's tools are `<prefix>__<upstream name>`. Absent: the source's name; `null`: the upstream's names as they are (a name another tool holds is refused)",
  ),
  policy: Definition.shape.policy.describe(
    "What happens to a tool the upstream starts to list or changes: `hold-all` (the default), every new or changed tool waits for an administrator's approval; `approve-new`, new tools are approved, changed ones wait; `approve-all`, everything is approved as observed. Every approval is audited.",
  ),
  timeoutMs: Definition.shape.timeoutMs.describe('Upper bound of one call to the upstream, in milliseconds (default 60 000, at most 15 minutes)'),
  enabled: Definition.shape.enabled.describe(
    'A disabled source keeps its tools and their approvals, but is not connected and its tools are neither listed nor callable',
  ),
});
export type UpstreamSourceBody = z.output<typeof UpstreamSourceBodySchema>;

/** A source as the API shows it: its definition (secrets only as set), its connection's health and its tools counted by status. */
export const UpstreamSourceViewSchema = toolExecutor.UpstreamSourceViewSchema;
export type UpstreamSourceView = z.output<typeof UpstreamSourceViewSchema>;

export const UpstreamSourceListSchema = toolExecutor.listUpstreams.response;
export type UpstreamSourceList = z.output<typeof UpstreamSourceListSchema>;

/** The answer of a put: whether it created the source (or replaced it), and the source as stored, connected once. */
export const UpstreamPutResultSchema = toolExecutor.putUpstream.response;
export type UpstreamPutResult = z.output<typeof UpstreamPutResultSchema>;

/** A source's tools with their pins: status, observed and approved definitions and digests, the diff of a changed one. */
export const UpstreamItemListSchema = toolExecutor.listUpstreamItems.response;
export type UpstreamItemList = z.output<typeof UpstreamItemListSchema>;

/** The tools an administrator approves, each with the digest of the definition they reviewed. */
export const UpstreamApprovalBodySchema = z.object({
  items: toolExecutor.approveUpstreamItems.request.shape.items.describe(
    "The tools to approve (the upstream's own names, 1 to 1000), each with the `observedDigest` the administrator reviewed",
  ),
});
export type UpstreamApprovalBody = z.output<typeof UpstreamApprovalBodySchema>;

/** The audit of a source's approvals, newest first. */
export const UpstreamApprovalListSchema = toolExecutor.listUpstreamApprovals.response;
export type UpstreamApprovalList = z.output<typeof UpstreamApprovalListSchema>;

/** The stdio servers the operator allows: names and parameters to fill in, never a command. */
export const StdioServerListSchema = toolExecutor.listStdioServers.response;
export type StdioServerList = z.output<typeof StdioServerListSchema>;
