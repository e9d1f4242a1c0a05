import {
  CallToolRequestParamsSchema,
  CompleteRequestParamsSchema,
  GetPromptRequestParamsSchema,
  GetTaskRequestSchema,
  InitializeRequestParamsSchema,
  PaginatedRequestParamsSchema,
  ReadResourceRequestParamsSchema,
  SetLevelRequestParamsSchema,
  SubscribeRequestParamsSchema,
  SubscriptionsListenRequestParamsSchema,
} from '@modelcontextprotocol/core';
import { GetSkillRequestParamsSchema, ReadResourceDirectoryRequestParamsSchema } from '@modelcontextprotocol/core/ext/skills';
import { z } from 'zod';

/**
 * The params of every client request this platform serves, parsed once at the edge into a typed
 * command. Each is `@modelcontextprotocol/core`'s schema, extended only where core lacks a field
 * (multi round-trip `inputResponses`/`requestState`, the tasks extension's `tasks/update`) or where
 * the platform bounds what core leaves open (non-empty names and URIs, cursor length, TTLs).
 * Unknown fields are dropped, never refused (S-68: servers ignore what they do not recognise).
 */

/** Longest cursor the edge forwards; the data's owner judges the rest (S-243). */
export const MAX_CURSOR_LENGTH = 1024;
/** Longest task id the edge forwards (ids are 128-bit random, about 26 characters). */
export const MAX_TASK_ID_LENGTH = 128;

const nonEmpty = (what: string) => z.string({ error: `${what} must be a non-empty string` }).min(1, `${what} must be a non-empty string`);

const cursor = z
  .string({ error: 'cursor must be a string' })
  .max(MAX_CURSOR_LENGTH, `cursor must be a string of at most ${MAX_CURSOR_LENGTH} characters`)
  .optional();

/** Multi round-trip retry fields (S-62, S-63): the client's answers by input key and the state it echoes. */
const RoundTripFieldsShape = {
  inputResponses: z.record(z.string(), z.unknown(), { error: 'inputResponses must be an object' }).optional(),
  requestState: z.string({ error: 'requestState must be a string' }).optional(),
};

/** `_meta.progressToken`: a string or an integer (S-264). */
const ProgressMetaSchema = z.looseObject({
  progressToken: z.union([z.string(), z.int()], { error: '_meta.progressToken must be a string or an integer' }).optional(),
});

/** `{ cursor? }` of every paginated list (S-239). */
export const ListParamsSchema = PaginatedRequestParamsSchema.extend({ cursor });
export type ListParams = z.infer<typeof ListParamsSchema>;

/** `initialize` (S-42). */
export const InitializeParamsSchema = InitializeRequestParamsSchema;
export type InitializeParams = z.infer<typeof InitializeParamsSchema>;

/** `logging/setLevel` (S-233). */
export const SetLevelParamsSchema = SetLevelRequestParamsSchema;
export type SetLevelParams = z.infer<typeof SetLevelParamsSchema>;

/** What a legacy task-augmented call's `task.ttl` must be (S-275). */
const TTL = 'task.ttl must be a non-negative integer of milliseconds';

/** `tools/call`: core's (with the legacy `task` augmentation, S-275), a non-empty name, the round-trip fields. */
export const CallToolParamsSchema = CallToolRequestParamsSchema.extend({
  _meta: ProgressMetaSchema.optional(),
  name: nonEmpty('name'),
  arguments: z.record(z.string(), z.unknown(), { error: 'arguments must be an object' }).optional(),
  task: z.looseObject({ ttl: z.int({ error: TTL }).nonnegative(TTL).optional() }, { error: 'task must be an object' }).optional(),
  ...RoundTripFieldsShape,
});
export type CallToolParams = z.infer<typeof CallToolParamsSchema>;

/** `resources/read`: a non-empty URI, and the round-trip fields (S-60 applies to any request). */
export const ReadResourceParamsSchema = ReadResourceRequestParamsSchema.extend({ uri: nonEmpty('uri'), ...RoundTripFieldsShape });
export type ReadResourceParams = z.infer<typeof ReadResourceParamsSchema>;

/** `skills/get` of the skills extension (SEP-2640, core's schema): the URI of a skill's `SKILL.md`. */
export const GetSkillParamsSchema = GetSkillRequestParamsSchema.extend({ uri: nonEmpty('uri') });
export type GetSkillParams = z.infer<typeof GetSkillParamsSchema>;

/** `resources/directory/read` of the skills extension (SEP-2640, core's schema): a directory's URI, paginated like a list. */
export const ReadDirectoryParamsSchema = ReadResourceDirectoryRequestParamsSchema.extend({ uri: nonEmpty('uri'), cursor });
export type ReadDirectoryParams = z.infer<typeof ReadDirectoryParamsSchema>;

/** `resources/subscribe` and `resources/unsubscribe` (S-205). */
export const SubscribeParamsSchema = SubscribeRequestParamsSchema.extend({ uri: nonEmpty('uri') });
export type SubscribeParams = z.infer<typeof SubscribeParamsSchema>;

/** `prompts/get`: a non-empty name, arguments a string-to-string map (S-219, S-222), the round-trip fields. */
export const GetPromptParamsSchema = GetPromptRequestParamsSchema.extend({
  name: nonEmpty('name'),
  arguments: z.record(z.string(), z.string({ error: 'arguments must map names to strings' }), { error: 'arguments must map names to strings' }).optional(),
  ...RoundTripFieldsShape,
});
export type GetPromptParams = z.infer<typeof GetPromptParamsSchema>;

/** `completion/complete` (S-225). */
export const CompleteParamsSchema = CompleteRequestParamsSchema;
export type CompleteParams = z.infer<typeof CompleteParamsSchema>;

/** `subscriptions/listen` (S-308): the filter is read by its own reader (unknown keys honoured as absent). */
export const ListenParamsSchema = SubscriptionsListenRequestParamsSchema.partial({ notifications: true }).loose();
export type ListenParams = z.infer<typeof ListenParamsSchema>;

/** `server/discover` takes nothing but `_meta`. */
export const DiscoverParamsSchema = z.looseObject({});
export type DiscoverParams = z.infer<typeof DiscoverParamsSchema>;

/** `tasks/get`, `tasks/result`, `tasks/cancel`: the task's id (S-288: anything else is -32602). */
export const TaskIdParamsSchema = GetTaskRequestSchema.shape.params.extend({
  taskId: nonEmpty('taskId').max(MAX_TASK_ID_LENGTH, 'taskId must be a non-empty string'),
});
export type TaskIdParams = z.infer<typeof TaskIdParamsSchema>;

/** The tasks extension's `tasks/update` (S-301): the task and the client's answers to its input requests. */
export const UpdateTaskParamsSchema = TaskIdParamsSchema.extend({
  inputResponses: z.record(z.string(), z.unknown(), { error: 'inputResponses must be an object' }),
});
export type UpdateTaskParams = z.infer<typeof UpdateTaskParamsSchema>;

/**
 * The `-32602` message for params a schema refused: the first problem, in the schema's own words
 * where the platform gave them (`name must be a non-empty string`), else with its path.
 */
export function describeParamsProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'Invalid params';
  const path = issue.path.map(String).join('.');
  const own = /must /.test(issue.message);
  return `Invalid params: ${own || path === '' ? issue.message : `${path}: ${issue.message}`}`;
}
