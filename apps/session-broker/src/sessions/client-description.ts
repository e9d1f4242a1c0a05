import { z } from 'zod';
import type { ClientCapabilities } from '@mcp-platform/protocol-mcp';

/**
 * The largest `initialize` params the broker reads, in bytes of JSON. Real clients send well under a
 * kilobyte (a data-URI icon in `clientInfo` a few more); anything larger is refused with `-32602`
 * rather than parsed, projected and forgotten, so a megabyte of `capabilities.experimental` costs the
 * caller a 400, not the platform its memory or a message over the NATS limit.
 */
export const MAX_INITIALIZE_PARAMS_BYTES = 64 * 1024;

/** The longest `clientInfo.name`, `version` or `title` a session keeps (S-42, S-58: free text, unverified). */
export const MAX_CLIENT_INFO_FIELD_LENGTH = 256;

const infoField = z.string().max(MAX_CLIENT_INFO_FIELD_LENGTH);

/** What a legacy session keeps of `clientInfo`: who the client says it is, for logs and support. */
export const StoredClientInfoSchema = z.object({ name: infoField, version: infoField, title: infoField.optional() });
export type StoredClientInfo = z.infer<typeof StoredClientInfoSchema>;

const flag = z.object({}).strict();

/**
 * What a legacy session keeps of the client's `capabilities`: exactly what the platform reads of them
 * when one of the session's calls (or tasks) asks the client something, as flags with no content.
 * `sampling` with `tools` (S-331) and `context`; `elicitation` per mode (S-316); `roots` and whether the
 * client sends `roots/list_changed` (S-342). Nothing else is ever read for a legacy session (`tasks`: the
 * platform sends clients no task-augmented requests; `extensions` are declared per request in the modern
 * era; `experimental` is not looked at), so nothing else is kept.
 */
export const StoredClientCapabilitiesSchema = z
  .object({
    sampling: z.object({ context: flag.optional(), tools: flag.optional() }).strict().optional(),
    elicitation: z.object({ form: flag.optional(), url: flag.optional() }).strict().optional(),
    roots: z.object({ listChanged: z.boolean().optional() }).strict().optional(),
  })
  .strict();
export type StoredClientCapabilities = z.infer<typeof StoredClientCapabilitiesSchema>;

/** Why an `initialize` is refused before a session is made (answered `-32602`, HTTP 400). */
export type ClientDescriptionProblem = { tooLarge: number } | { field: 'name' | 'version' | 'title' };

/** The `initialize` params' size in bytes of JSON; `undefined` when they are absent. */
export function initializeParamsBytes(params: Record<string, unknown> | undefined): number {
  return params === undefined ? 0 : Buffer.byteLength(JSON.stringify(params), 'utf8');
}

/** The first reason to refuse the client's description, or `undefined` when the session may keep it. */
export function clientDescriptionProblem(
  bytes: number,
  clientInfo: { name: string; version: string; title?: string | undefined },
): ClientDescriptionProblem | undefined {
  if (bytes > MAX_INITIALIZE_PARAMS_BYTES) return { tooLarge: bytes };
  for (const field of ['name', 'version', 'title'] as const) {
    const value = clientInfo[field];
    if (value !== undefined && value.length > MAX_CLIENT_INFO_FIELD_LENGTH) return { field };
  }
  return undefined;
}

/** The refusal's text, for the client (`-32602`). */
export function describeProblem(problem: ClientDescriptionProblem): string {
  if ('tooLarge' in problem) {
    return `Invalid params: initialize params are ${problem.tooLarge} bytes; at most ${MAX_INITIALIZE_PARAMS_BYTES} are accepted`;
  }
  return `Invalid params: clientInfo.${problem.field} is longer than ${MAX_CLIENT_INFO_FIELD_LENGTH} characters`;
}

/** `clientInfo` as the session keeps it: name, version and title, nothing else (icons, URLs, descriptions are not read). */
export function storedClientInfo(clientInfo: { name: string; version: string; title?: string | undefined }): StoredClientInfo {
  return { name: clientInfo.name, version: clientInfo.version, ...(clientInfo.title === undefined ? {} : { title: clientInfo.title }) };
}

/** The capabilities the session keeps (see {@link StoredClientCapabilitiesSchema}); every value an empty object or a boolean. */
export function storedClientCapabilities(capabilities: ClientCapabilities): StoredClientCapabilities {
  const stored: StoredClientCapabilities = {};
  const { sampling, elicitation, roots } = capabilities;
  if (sampling) {
    stored.sampling = { ...(sampling.context ? { context: {} } : {}), ...(sampling.tools ? { tools: {} } : {}) };
  }
  if (elicitation) {
    // The SDK schema reads a bare `elicitation: {}` as form mode already (S-316); keep what it says.
    stored.elicitation = { ...(elicitation.form ? { form: {} } : {}), ...(elicitation.url ? { url: {} } : {}) };
  }
  if (roots) stored.roots = typeof roots.listChanged === 'boolean' ? { listChanged: roots.listChanged } : {};
  return stored;
}
