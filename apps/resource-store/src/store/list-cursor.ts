import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';

/** Longest cursor we mint or accept: a key is at most 2048 characters (a URI). */
const MAX_CURSOR_LENGTH = 4096;

/** Items per page of resources/list, resources/templates/list and prompts/list (S-239: ours to choose). */
export const PAGE_SIZE = 100;

/**
 * List cursors (S-239, S-242): opaque to clients, base64url of `{"after":"<last key>"}` (a URI or a
 * name). Keyed rather than offset, so a page boundary stays valid when items come and go.
 */
export function encodeListCursor(after: string): string {
  return Buffer.from(JSON.stringify({ after }), 'utf8').toString('base64url');
}

/** The key to continue after; a cursor we did not mint is `INVALID_PARAMS` (S-243 → -32602). */
export function decodeListCursor(cursor: string): string {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]*$/.test(cursor)) throw invalidCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (!parsed || typeof parsed !== 'object' || Object.keys(parsed).length !== 1) throw invalidCursor();
  const after = (parsed as { after?: unknown }).after;
  if (typeof after !== 'string' || after.length === 0 || after.length > 2048) throw invalidCursor();
  return after;
}

/** Splits `limit + 1` fetched rows into a page and the cursor of the next one (S-240: only when more exist). */
export function toPage<T>(rows: T[], keyOf: (row: T) => string): { items: T[]; nextCursor?: string } {
  if (rows.length <= PAGE_SIZE) return { items: rows };
  const items = rows.slice(0, PAGE_SIZE);
  const last = items.at(-1);
  return last === undefined ? { items } : { items, nextCursor: encodeListCursor(keyOf(last)) };
}

function invalidCursor(): RpcError {
  return new RpcError(WireErrorCode.InvalidParams, 'Invalid cursor');
}
