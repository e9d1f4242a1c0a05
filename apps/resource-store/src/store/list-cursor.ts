import { decodeListCursor as decodeCursor, encodeListCursor as encodeCursor } from '@mcp-platform/shared-messaging';

/** Longest cursor we mint or accept: a key is at most 2048 characters (a URI). */
const MAX_CURSOR_LENGTH = 4096;

/** Items per page of resources/list, resources/templates/list and prompts/list (S-239: ours to choose). */
export const PAGE_SIZE = 100;

/** List cursors (S-239, S-242): `{"after":"<last key>"}` (a URI or a name), so a page boundary outlives changes. */
export function encodeListCursor(after: string): string {
  return encodeCursor({ after });
}

/** The key to continue after; a cursor we did not mint is `INVALID_PARAMS` (S-243 → -32602). */
export function decodeListCursor(cursor: string): string {
  return decodeCursor(cursor, { after: (key) => key.length > 0 && key.length <= 2048 }, MAX_CURSOR_LENGTH).after;
}

/** Splits `limit + 1` fetched rows into a page and the cursor of the next one (S-240: only when more exist). */
export function toPage<T>(rows: T[], keyOf: (row: T) => string): { items: T[]; nextCursor?: string } {
  if (rows.length <= PAGE_SIZE) return { items: rows };
  const items = rows.slice(0, PAGE_SIZE);
  const last = items.at(-1);
  return last === undefined ? { items } : { items, nextCursor: encodeListCursor(keyOf(last)) };
}
