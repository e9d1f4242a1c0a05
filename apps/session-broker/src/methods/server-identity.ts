import type { VirtualServer } from '../virtual-servers/virtual-server.cache';
import type { Implementation, ProtocolEra, ServerCapabilities } from '@mcp-platform/protocol-mcp';

/**
 * What this edge advertises (S-49): only what the platform serves today. Resources, prompts and
 * completions arrive with later issues; until then their methods answer `-32601` (S-13).
 * Legacy clients hear about tool list changes on their GET stream; the modern era would need
 * `subscriptions/listen`, which is not served yet, so it does not promise them.
 */
export function serverCapabilities(era: ProtocolEra): ServerCapabilities {
  return era === 'legacy' ? { tools: { listChanged: true }, logging: {} } : { tools: {}, logging: {} };
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
