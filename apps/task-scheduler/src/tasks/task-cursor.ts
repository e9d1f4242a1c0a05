import { decodeListCursor, encodeListCursor, RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import type { TaskListPosition } from '../store/stored-task';

/** Longest cursor we accept; ours are about 80 characters. */
const MAX_CURSOR_LENGTH = 512;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TASK_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * `tasks/list` cursors (S-282): `{"c":"<createdAt ISO>","i":"<task id>"}`, the last task of the page,
 * so a page boundary holds while tasks come and go.
 */
export function encodeTaskCursor(position: TaskListPosition): string {
  return encodeListCursor({ c: position.createdAt.toISOString(), i: position.id });
}

/** Where the cursor continues; a cursor we did not mint is `INVALID_PARAMS` (S-288 → -32602). */
export function decodeTaskCursor(cursor: string): TaskListPosition {
  const { c, i } = decodeListCursor(cursor, { c: (instant) => ISO_INSTANT.test(instant), i: (id) => TASK_ID.test(id) }, MAX_CURSOR_LENGTH);
  const createdAt = new Date(c);
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== c) throw new RpcError(WireErrorCode.InvalidParams, 'Invalid cursor');
  return { createdAt, id: i };
}
