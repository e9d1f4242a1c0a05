import type {
  CallToolResultSchema,
  CompleteResultSchema,
  GetPromptResultSchema,
  ImplementationSchema,
  InitializeResultSchema,
  LoggingLevelSchema,
  PromptSchema,
  ReadResourceResultSchema,
  ResourceSchema,
  ResourceTemplateSchema,
  ServerCapabilitiesSchema,
  SubscriptionFilterSchema,
  ToolSchema,
} from '@modelcontextprotocol/core';
import type { z } from 'zod';

export type Tool = z.infer<typeof ToolSchema>;
export type CallToolResult = z.infer<typeof CallToolResultSchema>;
export type LoggingLevel = z.infer<typeof LoggingLevelSchema>;
export type Implementation = z.infer<typeof ImplementationSchema>;
export type InitializeResult = z.infer<typeof InitializeResultSchema>;
export type ServerCapabilities = z.infer<typeof ServerCapabilitiesSchema>;
export type Resource = z.infer<typeof ResourceSchema>;
export type ResourceTemplate = z.infer<typeof ResourceTemplateSchema>;
export type ReadResourceResult = z.infer<typeof ReadResourceResultSchema>;
export type Prompt = z.infer<typeof PromptSchema>;
export type GetPromptResult = z.infer<typeof GetPromptResultSchema>;
export type CompleteResult = z.infer<typeof CompleteResultSchema>;
export type SubscriptionFilter = z.infer<typeof SubscriptionFilterSchema>;
