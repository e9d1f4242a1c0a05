import type { ToolDefinition } from '../catalog/catalog.types';
import type { ToolImplementation } from '../tools/tool-context';

/** A tool implemented in this process: its catalog definition and its code, found by `handler`. */
export interface BuiltinTool {
  /** Registry key stored in the tool row's `config.handler`, e.g. `demo.calculate`. */
  handler: string;
  /** Its catalog definition; `timeoutMs` defaults to the catalog's, `requiredScopes` to none. */
  definition: Omit<ToolDefinition, 'kind' | 'config' | 'enabled' | 'timeoutMs' | 'requiredScopes'> & { timeoutMs?: number; requiredScopes?: string[] };
  run: ToolImplementation;
}

/** The catalog row of a built-in tool (seeded like any other tool). */
export function builtinToolDefinition(tool: BuiltinTool, defaultTimeoutMs: number): ToolDefinition {
  return {
    ...tool.definition,
    timeoutMs: tool.definition.timeoutMs ?? defaultTimeoutMs,
    requiredScopes: tool.definition.requiredScopes ?? [],
    kind: 'builtin',
    config: { handler: tool.handler },
    enabled: true,
  };
}

/** The input schema of a tool without arguments (S-183). */
export const NO_ARGUMENTS = { type: 'object', additionalProperties: false } as const;

/** A tool result made of one text block. */
export function textResult(text: string, isError = false) {
  return { content: [{ type: 'text' as const, text }], ...(isError ? { isError: true } : {}) };
}
