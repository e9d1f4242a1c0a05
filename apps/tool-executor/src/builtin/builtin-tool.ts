import type { toolExecutor } from '@mcp-platform/protocol-contracts';
import type { CallToolResult } from '@mcp-platform/protocol-mcp';
import type { ToolDefinition } from '../catalog/catalog.types';
import { ClientCapabilityMissing, ClientRequestFailed, type ElicitParams, type ToolImplementation } from '../tools/tool-context';

/** A tool implemented in this process: its catalog definition and its code, found by `handler`. */
export interface BuiltinTool {
  /** Registry key stored in the tool row's `config.handler`, e.g. `demo.calculate`. */
  handler: string;
  /**
   * Its catalog definition; `timeoutMs` defaults to the catalog's, `requiredScopes` to none, and
   * `execution.taskSupport` (MCP's own spelling, S-197) to `forbidden`.
   */
  definition: Omit<ToolDefinition, 'kind' | 'config' | 'enabled' | 'timeoutMs' | 'requiredScopes' | 'taskSupport'> & {
    timeoutMs?: number;
    requiredScopes?: string[];
    execution?: { taskSupport: toolExecutor.TaskSupport };
  };
  /**
   * What a task-required or task-allowing tool needs from its client before its task is created (issue
   * 14 §2.4, SEP-2663 with SEP-2322): a modern call offered as a task answers `input_required` with these
   * elicitations until the retry carries every answer; the task is then created with them, and the
   * tool's run reads them as answers to its own requests of the same input keys.
   */
  beforeTask?: BeforeTaskInput[];
  run: ToolImplementation;
}

/** One question a tool asks before its task exists: an elicitation and its input key. */
export interface BeforeTaskInput {
  inputKey: string;
  elicit: ElicitParams;
}

/** The catalog row of a built-in tool (seeded like any other tool). */
export function builtinToolDefinition(tool: BuiltinTool, defaultTimeoutMs: number): ToolDefinition {
  const { execution, ...definition } = tool.definition;
  return {
    ...definition,
    timeoutMs: definition.timeoutMs ?? defaultTimeoutMs,
    requiredScopes: definition.requiredScopes ?? [],
    taskSupport: execution?.taskSupport ?? 'forbidden',
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

/**
 * Runs a tool body that asks the client something (sampling, elicitation, roots). When the client
 * cannot be asked (capability not declared: nothing was sent) or answers with a JSON-RPC error (e.g.
 * `-1`, the user rejected a sampling request, S-338), the call ends with an error result starting with
 * `refusal`; any other error (the call's abort above all) is rethrown.
 */
export async function askingClient<T extends CallToolResult | undefined>(refusal: string, body: () => Promise<T>): Promise<T | CallToolResult> {
  try {
    return await body();
  } catch (error) {
    if (error instanceof ClientCapabilityMissing) return textResult(`${refusal}: ${error.message}`, true);
    // The wording of the SDK's McpError, which clients and the conformance suite's reference server show.
    if (error instanceof ClientRequestFailed) return textResult(`${refusal}: MCP error ${error.code}: ${error.message}`, true);
    throw error;
  }
}
