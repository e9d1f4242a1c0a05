import type { CallToolResult, LoggingLevel } from '@mcp-platform/protocol-mcp';
import type { Clock } from './clock';

/** What a running tool may use besides its arguments. */
export interface ToolContext {
  /** Aborts on cancellation (`callCancelled`) or when the tool's timeout passes. */
  signal: AbortSignal;
  clock: Clock;
  /**
   * Reports progress to the caller when it asked for it. Values must strictly increase (S-266);
   * others are dropped. Nothing is sent after the call completes (S-267).
   */
  progress(progress: number, total?: number, message?: string): void;
  /** Sends `notifications/message` when the caller asked for logs at or below `level` (S-235). */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
}

/** A tool's arguments after validation against its inputSchema (an object; `{}` when none were sent). */
export type ToolArguments = Record<string, unknown>;

/** Runs one call of a tool. Throwing means a failure inside the tool: the caller gets an `isError` result. */
export type ToolImplementation = (args: ToolArguments, context: ToolContext) => Promise<CallToolResult>;
