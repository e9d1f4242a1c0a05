import { ClientCapabilitiesSchema, ImplementationSchema, LoggingLevelSchema, ProgressTokenSchema } from '@modelcontextprotocol/core';
import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  LOG_LEVEL_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  RELATED_TASK_META_KEY,
  SERVER_INFO_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
} from '@modelcontextprotocol/core/internal';
import { z } from 'zod';

/** The reserved `_meta` keys of the modern era (S-31..S-36), under one name. */
export const ModernMetaKey = {
  /** Request: the revision of this request (required, S-31). */
  ProtocolVersion: PROTOCOL_VERSION_META_KEY,
  /** Request: the client's capabilities for this request (required, S-32). */
  ClientCapabilities: CLIENT_CAPABILITIES_META_KEY,
  /** Request: self-reported client identity (optional, S-33). */
  ClientInfo: CLIENT_INFO_META_KEY,
  /** Request: minimum level of `notifications/message` for this request; absent means none (S-34). */
  LogLevel: LOG_LEVEL_META_KEY,
  /** Result: our `Implementation` (SHOULD, S-35). */
  ServerInfo: SERVER_INFO_META_KEY,
  /** Notification on a listen stream: the listen request's id (S-36). */
  SubscriptionId: SUBSCRIPTION_ID_META_KEY,
} as const;

/** `_meta` key tying a request, notification or result to its task: `{ taskId }` (S-29, S-285). */
export { RELATED_TASK_META_KEY };

/** `_meta.progressToken`: the request opts into progress notifications (S-28, S-264). */
export const PROGRESS_TOKEN_META_KEY = 'progressToken';

/**
 * The request `_meta` envelope every modern request carries (S-31..S-34). Loose: other keys
 * (`progressToken`, trace context, extensions) pass through.
 */
export const ModernRequestMetaSchema = z.looseObject({
  [PROTOCOL_VERSION_META_KEY]: z.string(),
  [CLIENT_CAPABILITIES_META_KEY]: ClientCapabilitiesSchema.loose(),
  [CLIENT_INFO_META_KEY]: ImplementationSchema.optional(),
  [LOG_LEVEL_META_KEY]: LoggingLevelSchema.optional(),
  [PROGRESS_TOKEN_META_KEY]: ProgressTokenSchema.optional(),
});
export type ModernRequestMeta = z.infer<typeof ModernRequestMetaSchema>;
