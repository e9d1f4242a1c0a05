import type { z } from 'zod';
import type {
  CallToolResultSchema,
  ImplementationSchema,
  InitializeResultSchema,
  LoggingLevelSchema,
  ServerCapabilitiesSchema,
  ToolSchema,
} from '@modelcontextprotocol/core';

export type Tool = z.infer<typeof ToolSchema>;
export type CallToolResult = z.infer<typeof CallToolResultSchema>;
export type LoggingLevel = z.infer<typeof LoggingLevelSchema>;
export type Implementation = z.infer<typeof ImplementationSchema>;
export type InitializeResult = z.infer<typeof InitializeResultSchema>;
export type ServerCapabilities = z.infer<typeof ServerCapabilitiesSchema>;
