/**
 * MCP wire schemas for both protocol eras, on @modelcontextprotocol/core's Zod schemas.
 * This lib adds only what core lacks; it imports no framework (tag platform:neutral).
 */
export * from './capabilities';
export * from './codecs/era-codec';
export * from './codecs/era-codecs';
export { legacyCodec } from './codecs/legacy.codec';
export { modernCodec } from './codecs/modern.codec';
export type {
  CallToolResult,
  CompleteResult,
  GetPromptResult,
  Implementation,
  InitializeResult,
  LoggingLevel,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  SubscriptionFilter,
  Tool,
} from './core-types';
export * from './era';
export * from './error-codes';
export * from './headers';
export * from './json-rpc-errors';
export * from './json-rpc-message';
export * from './log-levels';
export * from './meta';
export * from './methods/method-params';
export * from './methods/method-registry';
export * from './param-headers';
export * from './plain-object';
export * from './results';
export * from './scopes';
export * from './versions';
export {
  CallToolResultSchema,
  ClientCapabilitiesSchema,
  CompleteResultSchema,
  ContentBlockSchema,
  CreateMessageRequestParamsSchema,
  CreateMessageResultSchema,
  DiscoverResultSchema,
  ElicitRequestParamsSchema,
  ElicitResultSchema,
  GetPromptResultSchema,
  ImplementationSchema,
  InitializeRequestParamsSchema,
  InitializeResultSchema,
  ListRootsResultSchema,
  ListToolsResultSchema,
  LoggingLevelSchema,
  ProgressTokenSchema,
  PromptSchema,
  ReadResourceResultSchema,
  RequestIdSchema,
  ResourceSchema,
  ResourceTemplateSchema,
  ServerCapabilitiesSchema,
  SubscriptionFilterSchema,
  ToolSchema,
} from '@modelcontextprotocol/core';
export { JSONRPC_VERSION } from '@modelcontextprotocol/core/internal';
