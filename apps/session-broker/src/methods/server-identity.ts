import type { VirtualServer } from '../virtual-servers/virtual-server.cache';
import type { Implementation, ProtocolEra, ServerCapabilities } from '@mcp-platform/protocol-mcp';

/**
 * What this edge advertises (S-49): only what the platform serves today. Resources (S-198), prompts
 * (S-216) and completion (S-225) are served by the resource store. Legacy clients may subscribe to
 * resources (S-205, `notifications/resources/updated` on the GET stream) and hear about list changes
 * there; the modern era would need `subscriptions/listen` for both, which is not served yet, so it
 * promises neither and `resources/subscribe` stays `-32601` there (S-13).
 */
export function serverCapabilities(era: ProtocolEra): ServerCapabilities {
  return era === 'legacy'
    ? { tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {}, logging: {} }
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
