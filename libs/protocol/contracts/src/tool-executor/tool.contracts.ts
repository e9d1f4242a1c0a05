import { z } from 'zod';
import { CallToolResultSchema, LoggingLevelSchema, ToolSchema } from '@mcp-platform/protocol-mcp';
import { defineEvent, defineRpc } from '../define-contract';

const TenantServer = {
  /** Tenant slug, e.g. `demo`. */
  tenant: z.string().min(1).max(64),
  /** Virtual server slug inside the tenant, e.g. `default`. */
  server: z.string().min(1).max(64),
};

/** One page of the tools a virtual server exposes to the caller, in a deterministic order. */
export const listTools = defineRpc({
  subject: 'tool-executor.v1.tool.list',
  request: z.object({
    ...TenantServer,
    /**
     * Opaque cursor from an earlier page (S-239); absent for the first page. Its length is the
     * executor's to judge, so a client's bad cursor is `INVALID_PARAMS` (-32602, S-243).
     */
    cursor: z.string().optional(),
  }),
  response: z.object({
    tools: z.array(ToolSchema),
    nextCursor: z.string().optional(),
    /** Caching hints for the modern era (S-246..S-249), computed by the owner of the data. */
    ttlMs: z.number().int().nonnegative(),
    cacheScope: z.enum(['public', 'private']),
  }),
});

/** Where a running call sends its notifications, and which ones the caller asked for. */
export const CallNotifySchema = z.object({
  /** Route token of the broker replica that holds the caller's stream (see `callNotified`). */
  route: z.string().min(1),
  /** True when the request carried `_meta.progressToken` (the broker keeps the token itself). */
  progress: z.boolean(),
  /** Minimum level of `notifications/message` to forward; absent means none (S-34, S-233). */
  logLevel: LoggingLevelSchema.optional(),
});
export type CallNotify = z.infer<typeof CallNotifySchema>;

/** Runs one tool call. Tool failures are results with `isError: true`; protocol failures are wire errors. */
export const callTool = defineRpc({
  subject: 'tool-executor.v1.tool.call',
  request: z.object({
    ...TenantServer,
    /** Platform-wide id of this call, minted by the broker; cancellation and notifications use it. */
    callId: z.string().min(1).max(128),
    name: z.string().min(1).max(256),
    arguments: z.record(z.string(), z.unknown()).optional(),
    /** The protocol revision the caller speaks (a tool may shape its answer by it). */
    protocolVersion: z.string(),
    notify: CallNotifySchema.optional(),
  }),
  response: CallToolResultSchema,
  // The executor enforces each tool's own timeout; this only bounds a lost reply.
  timeoutMs: 15 * 60_000,
});

/** Stops a running call (legacy `notifications/cancelled`, or a modern stream closed by its client). */
export const callCancelled = defineEvent({
  subject: 'tool-executor.v1.call.cancelled',
  delivery: 'all',
  payload: z.object({
    callId: z.string().min(1),
    reason: z.string().max(1024).optional(),
  }),
});
