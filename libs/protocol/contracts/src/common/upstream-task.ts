import { z } from 'zod';

/**
 * The task an upstream MCP server created for a call (issue 15 §4): a 2026-07-28 upstream's (the tasks
 * extension, SEP-2663) or a 2025-11-25 upstream's (core tasks). The platform task created for that call
 * carries it from the offer that met it (`callTool`'s `runAsTask`) through the task's stored call to each
 * of its runs (`callTool` with `taskMode: 'task'`), which follow it rather than call the tool again.
 */
export const UpstreamTaskSchema = z.strictObject({
  /** The upstream's id of its task, as its `CreateTaskResult` named it. */
  taskId: z.string().min(1).max(256),
});
export type UpstreamTask = z.infer<typeof UpstreamTaskSchema>;
