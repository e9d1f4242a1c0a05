import type { VirtualServer } from '../virtual-servers/virtual-server.cache';
import type { Implementation, ProtocolEra, ServerCapabilities } from '@mcp-platform/protocol-mcp';

/**
 * What this edge advertises (S-49): only what the platform serves today. Resources (S-198), prompts
 * (S-216) and completion (S-225) are served by the resource store; resource subscriptions are not
 * yet, so `subscribe` is not claimed and `resources/subscribe` answers `-32601` (S-13, S-205).
 * Legacy clients hear about list changes on their GET stream; the modern era would need
 * `subscriptions/listen`, which is not served yet, so it does not promise them.
 */
export function serverCapabilities(era: ProtocolEra): ServerCapabilities {
  return era === 'legacy'
    ? { tools: { listChanged: true }, resources: { listChanged: true }, prompts: { listChanged: true }, completions: {}, logging: {} }
    : { tools: {}, resources: {}, prompts: {}, completions: {}, logging: {} };
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
