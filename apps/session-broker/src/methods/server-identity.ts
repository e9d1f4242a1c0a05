import type { VirtualServer } from '../virtual-servers/virtual-server.cache';
import type { Implementation, ServerCapabilities } from '@mcp-platform/protocol-mcp';

/**
 * What this edge advertises (S-49): only what the platform serves. Resources (S-198), prompts (S-216)
 * and completion (S-225) are served by the resource store. Both eras hear about list changes and
 * subscribe to resources: legacy clients with `resources/subscribe` and the GET stream (S-205), modern
 * ones with `subscriptions/listen` (S-308), where `resources/subscribe` does not exist (S-13).
 */
export function serverCapabilities(): ServerCapabilities {
  return { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {}, logging: {} };
}

/** The `Implementation` a virtual server presents (S-58): `<tenant>/<server>` plus its title and description. */
export function serverInfo(server: VirtualServer, version: string): Implementation {
  return {
    name: `${server.tenant}/${server.name}`,
    version,
    ...(server.title ? { title: server.title } : {}),
    ...(server.description ? { description: server.description } : {}),
  };
}
