import { z } from 'zod';
import { defineEvent, defineRpc } from '../define-contract';

/** A named selection of a tenant's catalog with its own MCP URL (DESIGN.md §6). */
export const VirtualServerSchema = z.object({
  tenant: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  /** Text a client may hand to its model (`instructions` in InitializeResult / DiscoverResult). */
  instructions: z.string().optional(),
  /** Whether anonymous callers are allowed (an explicit choice of the tenant's admin; off by default). */
  public: z.boolean(),
  /** The tenant is disabled: nobody may use the server, with a token or without (absent: enabled). */
  disabled: z.boolean().optional(),
  /**
   * Every scope a caller may need on this server: the baseline `mcp` plus the scopes its tools
   * require. The authorization server offers these for the server's resource URL; the broker's
   * Protected Resource Metadata advertises only the baseline (S-136).
   */
  scopes: z.array(z.string()),
});
export type VirtualServer = z.infer<typeof VirtualServerSchema>;

/** Looks up one virtual server; `NOT_FOUND` when the tenant has no such server. */
export const getVirtualServer = defineRpc({
  subject: 'tool-executor.v1.virtual-server.get',
  request: z.object({ tenant: z.string().min(1).max(64), server: z.string().min(1).max(64) }),
  response: VirtualServerSchema,
});

/** Every virtual server of every tenant (operators' view; used to print URLs at start). */
export const listVirtualServers = defineRpc({
  subject: 'tool-executor.v1.virtual-server.list',
  request: z.object({}),
  response: z.object({ servers: z.array(VirtualServerSchema) }),
});

/**
 * The tenant's catalog changed: executor replicas reload it; brokers refresh their caches and tell the
 * clients of the named servers (`list_changed`). `servers` lists exactly the servers whose tools or
 * settings changed; empty means none did (e.g. a tool no server exposes yet), not all of them.
 */
export const catalogChanged = defineEvent({
  subject: 'tool-executor.v1.catalog.changed',
  delivery: 'all',
  payload: z.object({ tenant: z.string(), servers: z.array(z.string()) }),
});
