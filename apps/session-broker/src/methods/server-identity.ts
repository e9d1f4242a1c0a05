import type { Implementation, ServerCapabilities } from '@mcp-platform/protocol-mcp';
import { SKILLS_EXTENSION, TASKS_EXTENSION } from '@mcp-platform/protocol-mcp';
import type { VirtualServer } from '../virtual-servers/virtual-server.cache';

/**
 * What this edge advertises (S-49): only what the platform serves. Resources (S-198), prompts (S-216)
 * and completion (S-225) are served by the resource store. Both eras hear about list changes and
 * subscribe to resources: legacy clients with `resources/subscribe` and the GET stream (S-205), modern
 * ones with `subscriptions/listen` (S-308), where `resources/subscribe` does not exist (S-13). Tasks
 * are served by the task scheduler: core tasks for 2025-11-25 sessions, the tasks extension in the modern era.
 * Skills (SEP-2640, S-54) are the resource store's, in both eras, with `resources/directory/read`.
 */
export function serverCapabilities(tasks?: 'legacy' | 'modern'): ServerCapabilities {
  const capabilities: ServerCapabilities = {
    tools: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    prompts: { listChanged: true },
    completions: {},
    logging: {},
  };
  const skills = { [SKILLS_EXTENSION]: { directoryRead: true } };
  // spec S-272: legacy tasks (2025-11-25 sessions) for tools/call, listed and cancellable; S-295: the modern extension.
  if (tasks === 'legacy') return { ...capabilities, tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } }, extensions: skills };
  if (tasks === 'modern') return { ...capabilities, extensions: { [TASKS_EXTENSION]: {}, ...skills } };
  return { ...capabilities, extensions: skills };
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
