import { z } from 'zod';
import { CompleteResultSchema, GetPromptResultSchema, PromptSchema } from '@mcp-platform/protocol-mcp';
import { ContinuationSchema, InputRequiredSchema } from '../common/input-required';
import { defineRpc } from '../define-contract';
import { CachingHintsSchema, VirtualServerAddressSchema } from './resource.contracts';

/** One page of the prompts the virtual server exposes, ordered by name. */
export const listPrompts = defineRpc({
  subject: 'resource-store.v1.prompt.list',
  request: VirtualServerAddressSchema.extend({ cursor: z.string().optional() }),
  response: CachingHintsSchema.extend({ prompts: z.array(PromptSchema), nextCursor: z.string().optional() }),
});

/**
 * One prompt rendered with its arguments. An unknown prompt or a missing required argument is
 * `INVALID_PARAMS` (-32602, S-221). A prompt with inputs, asked by a request that can ask by result,
 * answers `{ inputRequired }` until `inputResponses` holds an answer for each (S-60).
 */
export const getPrompt = defineRpc({
  subject: 'resource-store.v1.prompt.get',
  request: VirtualServerAddressSchema.extend({
    name: z.string().min(1).max(256),
    arguments: z.record(z.string(), z.string()).optional(),
    /**
     * Whether the request can carry input requests in its result (the 2026-07-28 stateless wire):
     * then a prompt's inputs are asked; otherwise they render as not answered.
     */
    asksByResult: z.boolean().optional(),
    /** What the client declared on this request: inputs are asked only of a client with `elicitation` (S-38). */
    clientCapabilities: z.record(z.string(), z.unknown()).optional(),
    /** The answers so far, by input key (the broker merges them from the sealed `requestState`). */
    inputResponses: z.record(z.string().min(1).max(256), z.unknown()).optional(),
    /** What the last round answered as its `continuation` (an upstream prompt's own state), from the sealed `requestState`. */
    continuation: ContinuationSchema.optional(),
  }),
  // GetPromptResultSchema is loose: the strict input-required shape first.
  response: z.union([InputRequiredSchema, GetPromptResultSchema]),
});

/** What `completion/complete` completes: a prompt's argument or a resource template's variable. */
export const CompletionReferenceSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ref/prompt'), name: z.string().min(1).max(256) }),
  z.object({ type: z.literal('ref/resource'), uri: z.string().min(1).max(2048) }),
]);

/**
 * Completion values for one argument (at most 100, S-227), filtered by the typed prefix and the
 * earlier arguments in `context`. An unknown prompt or template is `INVALID_PARAMS` (-32602, S-229).
 */
export const complete = defineRpc({
  subject: 'resource-store.v1.completion.complete',
  request: VirtualServerAddressSchema.extend({
    ref: CompletionReferenceSchema,
    argument: z.object({ name: z.string().min(1).max(256), value: z.string().max(4096) }),
    context: z.object({ arguments: z.record(z.string(), z.string()).optional() }).optional(),
  }),
  response: CompleteResultSchema,
});
