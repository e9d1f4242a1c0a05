import { SKILLS_EXTENSION_ID } from '@modelcontextprotocol/core/ext/skills';
import { z } from 'zod';
import {
  CallToolParamsSchema,
  CompleteParamsSchema,
  DiscoverParamsSchema,
  GetPromptParamsSchema,
  GetSkillParamsSchema,
  InitializeParamsSchema,
  ListenParamsSchema,
  ListParamsSchema,
  ReadDirectoryParamsSchema,
  ReadResourceParamsSchema,
  SetLevelParamsSchema,
  SubscribeParamsSchema,
  TaskIdParamsSchema,
  UpdateTaskParamsSchema,
} from './method-params';

/** The tasks extension's identifier (S-295): a client declares it in its capabilities' `extensions`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/**
 * The skills extension's identifier (SEP-2640, S-54): declared in `capabilities.extensions` with
 * `directoryRead`; it asks nothing of the client.
 */
export const SKILLS_EXTENSION = SKILLS_EXTENSION_ID;

/** Client capabilities a modern request must declare to call a method of the tasks extension (S-295). */
export const TASKS_EXTENSION_CAPABILITY: Readonly<Record<string, unknown>> = { extensions: { [TASKS_EXTENSION]: {} } };

/** Where a method exists in the legacy era: from which revision on (revision ids compare as strings). */
export interface LegacyPresence {
  since: string;
}

/** Where a method exists in the modern era: the client capabilities a request must declare to call it (S-38). */
export interface ModernPresence {
  requires?: Readonly<Record<string, unknown>>;
}

/** One client-to-server request method of MCP: the eras it exists in and its params. */
export interface McpMethod<P = unknown> {
  /** Absent: the method does not exist in the era (a request is "method not found", S-13). */
  legacy?: LegacyPresence;
  modern?: ModernPresence;
  /** Parses the request's `params` (absent params parse as `{}`). */
  params: z.ZodType<P>;
  /** Modern `complete` results carry the caching hints `ttlMs` and `cacheScope` (S-246). */
  cacheable?: boolean;
}

const FIRST_LEGACY = '2025-03-26';
/** Tasks arrived with 2025-11-25 (S-272). */
const LEGACY_TASKS = '2025-11-25';

/**
 * Every request method a client may send the platform, with the eras it belongs to: registry
 * membership is what an era accepts (absent: `-32601`, with the era's HTTP status). Derived from the
 * specification's method lists (the 2025 revisions and 2026-07-28 with the tasks extension) and the skills extension's.
 */
export const MCP_METHODS = {
  initialize: { legacy: { since: FIRST_LEGACY }, params: InitializeParamsSchema },
  ping: { legacy: { since: FIRST_LEGACY }, params: z.looseObject({}) },
  'logging/setLevel': { legacy: { since: FIRST_LEGACY }, params: SetLevelParamsSchema },
  'server/discover': { modern: {}, params: DiscoverParamsSchema, cacheable: true },
  'subscriptions/listen': { modern: {}, params: ListenParamsSchema },
  'tools/list': { legacy: { since: FIRST_LEGACY }, modern: {}, params: ListParamsSchema, cacheable: true },
  'tools/call': { legacy: { since: FIRST_LEGACY }, modern: {}, params: CallToolParamsSchema },
  'resources/list': { legacy: { since: FIRST_LEGACY }, modern: {}, params: ListParamsSchema, cacheable: true },
  'resources/templates/list': { legacy: { since: FIRST_LEGACY }, modern: {}, params: ListParamsSchema, cacheable: true },
  'resources/read': { legacy: { since: FIRST_LEGACY }, modern: {}, params: ReadResourceParamsSchema, cacheable: true },
  'resources/subscribe': { legacy: { since: FIRST_LEGACY }, params: SubscribeParamsSchema },
  'resources/unsubscribe': { legacy: { since: FIRST_LEGACY }, params: SubscribeParamsSchema },
  'prompts/list': { legacy: { since: FIRST_LEGACY }, modern: {}, params: ListParamsSchema, cacheable: true },
  'prompts/get': { legacy: { since: FIRST_LEGACY }, modern: {}, params: GetPromptParamsSchema },
  'completion/complete': { legacy: { since: FIRST_LEGACY }, modern: {}, params: CompleteParamsSchema },
  // The skills extension (SEP-2640): both eras, since extensions are declared in either era's capabilities.
  'skills/list': { legacy: { since: FIRST_LEGACY }, modern: {}, params: ListParamsSchema, cacheable: true },
  'skills/get': { legacy: { since: FIRST_LEGACY }, modern: {}, params: GetSkillParamsSchema, cacheable: true },
  'resources/directory/read': { legacy: { since: FIRST_LEGACY }, modern: {}, params: ReadDirectoryParamsSchema, cacheable: true },
  'tasks/get': { legacy: { since: LEGACY_TASKS }, modern: { requires: TASKS_EXTENSION_CAPABILITY }, params: TaskIdParamsSchema },
  'tasks/result': { legacy: { since: LEGACY_TASKS }, params: TaskIdParamsSchema },
  'tasks/list': { legacy: { since: LEGACY_TASKS }, params: ListParamsSchema },
  'tasks/cancel': { legacy: { since: LEGACY_TASKS }, modern: { requires: TASKS_EXTENSION_CAPABILITY }, params: TaskIdParamsSchema },
  'tasks/update': { modern: { requires: TASKS_EXTENSION_CAPABILITY }, params: UpdateTaskParamsSchema },
} as const satisfies Record<string, McpMethod>;

/** A method of {@link MCP_METHODS}. */
export type McpMethodName = keyof typeof MCP_METHODS;

/** The command a method's params parse into. */
export type ParamsOf<M extends McpMethodName> = z.infer<(typeof MCP_METHODS)[M]['params']>;

/** Whether `method` is one of {@link MCP_METHODS}. */
export function isMcpMethod(method: string): method is McpMethodName {
  return Object.hasOwn(MCP_METHODS, method);
}

/** The entry of a method, as the era codecs read it. */
export function mcpMethod(method: McpMethodName): McpMethod {
  return MCP_METHODS[method];
}
