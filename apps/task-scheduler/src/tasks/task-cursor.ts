import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import type { TaskListPosition } from '../store/stored-task';

/** Longest cursor we accept; ours are about 80 characters. */
const MAX_CURSOR_LENGTH = 512;
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TASK_ID = /^[A-Za-z0-9_-]{1,128}$/;

/**
 * `tasks/list` cursors (S-282): opaque to clients, base64url of `{"c":"<createdAt ISO>","i":"<task id>"}`,
 * the last task of the page. Keyed rather than offset, so a page boundary holds while tasks come and go.
 */
export function encodeTaskCursor(position: TaskListPosition): string {
  return Buffer.from(JSON.stringify({ c: position.createdAt.toISOString(), i: position.id }), 'utf8').toString('base64url');
}

/** Where the cursor continues; a cursor we did not mint is `INVALID_PARAMS` (S-288 → -32602). */
export function decodeTaskCursor(cursor: string): TaskListPosition {
  if (cursor.length === 0 || cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed) || Object.keys(parsed).length !== 2) throw invalidCursor();
  const { c, i } = parsed as { c?: unknown; i?: unknown };
  if (typeof c !== 'string' || !ISO_INSTANT.test(c) || typeof i !== 'string' || !TASK_ID.test(i)) throw invalidCursor();
  const createdAt = new Date(c);
  if (Number.isNaN(createdAt.getTime()) || createdAt.toISOString() !== c) throw invalidCursor();
  return { createdAt, id: i };
}

function invalidCursor(): RpcError {
  return new RpcError(WireErrorCode.InvalidParams, 'Invalid cursor');
}
