import { DirectoryResourceSchema } from '@modelcontextprotocol/core/ext/skills';
import { z } from 'zod';
import { CompleteResultSchema, GetPromptResultSchema, ReadResourceResultSchema } from '@mcp-platform/protocol-mcp';
import { TENANT_SLUG_PATTERN } from '../common/tenant';
import { defineEvent, defineRpc } from '../define-contract';

/**
 * What the resource store asks the executor about the upstream items it serves (issue 15 §3): the
 * executor holds the upstream connections, so a read, a render or a completion of an upstream-backed
 * item goes to it. The store has checked the caller's access to the virtual server first; the executor
 * checks the principal's tenant again. An upstream that cannot be used answers `UNAVAILABLE`; what the
 * upstream itself answered with a JSON-RPC error comes back as `INVALID_PARAMS` with its message.
 */

const Origin = {
  tenant: z.string().regex(TENANT_SLUG_PATTERN),
  /** The source's id (a source renamed or recreated under the same name is another source). */
  sourceId: z.string().uuid(),
};

/**
 * The most an upstream read may answer, in bytes of JSON: what crosses in one bus message. A larger
 * content is refused (`INVALID_PARAMS`) rather than cut.
 */
export const UPSTREAM_READ_MAX_BYTES = 768 * 1024;

/** `resources/read` of `uri` (a listed resource, or a URI one of the source's templates matches) on the source. */
export const readUpstreamResource = defineRpc({
  subject: 'tool-executor.v1.upstream-resource.read',
  request: z.object({ ...Origin, uri: z.string().min(1).max(2048) }),
  response: z.object({ contents: ReadResourceResultSchema.shape.contents }),
});

/** The most children of one upstream directory the executor reads (pages together); past it, `INVALID_PARAMS`. */
export const SKILL_DIRECTORY_MAX_CHILDREN = 1_000;

/**
 * `resources/directory/read` of `uri` (a directory of one of the source's skills, SEP-2640) on the
 * source, every page of it: the store serves a directory as one page.
 */
export const readUpstreamDirectory = defineRpc({
  subject: 'tool-executor.v1.upstream-directory.read',
  request: z.object({ ...Origin, uri: z.string().min(1).max(2048) }),
  response: z.object({ resources: z.array(DirectoryResourceSchema).max(SKILL_DIRECTORY_MAX_CHILDREN) }),
});

/** `prompts/get` of the upstream's prompt `name` (its own name, without the prefix). */
export const getUpstreamPrompt = defineRpc({
  subject: 'tool-executor.v1.upstream-prompt.get',
  request: z.object({ ...Origin, name: z.string().min(1).max(256), arguments: z.record(z.string(), z.string()).optional() }),
  response: GetPromptResultSchema,
});

/** `completion/complete` on the source, for its prompt (its own name) or its resource template (its URI template). */
export const completeUpstream = defineRpc({
  subject: 'tool-executor.v1.upstream-completion.complete',
  request: z.object({
    ...Origin,
    ref: z.discriminatedUnion('type', [
      z.object({ type: z.literal('ref/prompt'), name: z.string().min(1).max(256) }),
      z.object({ type: z.literal('ref/resource'), uri: z.string().min(1).max(2048) }),
    ]),
    argument: z.object({ name: z.string().min(1).max(256), value: z.string().max(4096) }),
    context: z.object({ arguments: z.record(z.string(), z.string()).optional() }).optional(),
  }),
  response: CompleteResultSchema,
});

/**
 * An upstream said a resource it serves to the tenant changed (`notifications/resources/updated`), for
 * a URI a client of the tenant subscribed to: every broker replica tells its subscribed sessions and
 * listeners, as for the store's own `resourceUpdated`. The executor drops what nobody subscribed to and
 * sends at most one per URI each {@link UPSTREAM_UPDATE_MIN_INTERVAL_MS}.
 */
export const upstreamResourceUpdated = defineEvent({
  subject: 'tool-executor.v1.upstream-resource.updated',
  delivery: 'all',
  payload: z.object({ tenant: z.string().regex(TENANT_SLUG_PATTERN), uri: z.string().min(1).max(2048) }),
});

/** The shortest time between two `upstreamResourceUpdated` of one URI of a tenant: a flood of an upstream's is coalesced. */
export const UPSTREAM_UPDATE_MIN_INTERVAL_MS = 1_000;

/**
 * A tool executor replica started (or lost track): every broker replica reports at once what it holds
 * (`resourceInterestReported`), so upstream subscriptions open again without waiting for the next refresh.
 */
export const resourceInterestRequested = defineEvent({
  subject: 'tool-executor.v1.resource-interest.requested',
  delivery: 'all',
  payload: z.object({}),
});
