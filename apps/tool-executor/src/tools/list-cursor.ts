import { decodeListCursor as decodeCursor, encodeListCursor as encodeCursor } from '@mcp-platform/shared-messaging';

/** Longest cursor we ever mint or accept (a name is at most 128 characters: S-181). */
const MAX_CURSOR_LENGTH = 512;

/** tools/list cursors (S-239, S-242): `{"after":"<last tool name>"}`, by name, so a page boundary outlives changes. */
export function encodeListCursor(afterName: string): string {
  return encodeCursor({ after: afterName });
}

/** The name to continue after; a cursor we did not mint is `INVALID_PARAMS` (S-243 → -32602). */
export function decodeListCursor(cursor: string): string {
  return decodeCursor(cursor, { after: (name) => name.length > 0 && name.length <= 128 }, MAX_CURSOR_LENGTH).after;
}
