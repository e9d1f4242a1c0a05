import type { z } from 'zod';
import type { CallToolResultSchema, LoggingLevelSchema, ToolSchema } from '@modelcontextprotocol/core';

export type Tool = z.infer<typeof ToolSchema>;
export type CallToolResult = z.infer<typeof CallToolResultSchema>;
export type LoggingLevel = z.infer<typeof LoggingLevelSchema>;
