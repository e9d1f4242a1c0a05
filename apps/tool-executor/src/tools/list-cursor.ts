import { RpcError, WireErrorCode } from '@mcp-platform/shared-messaging';

/** Longest cursor we ever mint or accept (a name is at most 128 characters: S-181). */
const MAX_CURSOR_LENGTH = 512;

/**
 * tools/list cursors (S-239, S-242): opaque to clients, base64url of `{"after":"<last tool name>"}`.
 * Keyed by name rather than offset, so a page boundary stays valid when tools are added or removed.
 */
export function encodeListCursor(afterName: string): string {
  return Buffer.from(JSON.stringify({ after: afterName }), 'utf8').toString('base64url');
}

/** The name to continue after; a cursor we did not mint is `INVALID_PARAMS` (S-243 → -32602). */
export function decodeListCursor(cursor: string): string {
  if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]*$/.test(cursor)) throw invalidCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  const after = (parsed as { after?: unknown } | null)?.after;
  if (typeof after !== 'string' || after.length === 0 || after.length > 128 || Object.keys(parsed as object).length !== 1) throw invalidCursor();
  return after;
}

function invalidCursor(): RpcError {
  return new RpcError(WireErrorCode.InvalidParams, 'Invalid cursor');
}
