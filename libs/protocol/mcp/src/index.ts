/**
 * MCP wire schemas for both protocol eras, on @modelcontextprotocol/core's Zod schemas.
 * This lib adds only what core lacks; it imports no framework (tag platform:neutral).
 */
export {
  CallToolResultSchema,
  ContentBlockSchema,
  LoggingLevelSchema,
  ToolSchema,
} from '@modelcontextprotocol/core';
export type { CallToolResult, LoggingLevel, Tool } from './core-types';
