import { RpcError, WireErrorCode } from './rpc-error';

/** The fields of a cursor and what each must look like to be one we minted. */
export type CursorFields<K extends string> = Record<K, (value: string) => boolean>;

/**
 * List cursors (S-239, S-242), for every paged list the platform serves: opaque to clients, the
 * base64url of a small JSON object of string fields naming the last item of the page. Keyed rather
 * than offset, so a page boundary holds while items come and go.
 */
export function encodeListCursor(position: Record<string, string>): string {
  return Buffer.from(JSON.stringify(position), 'utf8').toString('base64url');
}

/**
 * The position a cursor continues after: exactly `fields`, each accepted by its check. Anything we
 * did not mint (too long, not base64url, not that JSON) is `INVALID_PARAMS` (S-243 → -32602).
 */
export function decodeListCursor<K extends string>(cursor: string, fields: CursorFields<K>, maxLength: number): Record<K, string> {
  if (cursor.length === 0 || cursor.length > maxLength || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw invalidCursor();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalidCursor();
  const names = Object.keys(fields) as K[];
  if (Object.keys(parsed).length !== names.length) throw invalidCursor();
  const position = {} as Record<K, string>;
  for (const name of names) {
    const value = (parsed as Record<string, unknown>)[name];
    if (typeof value !== 'string' || !fields[name](value)) throw invalidCursor();
    position[name] = value;
  }
  return position;
}

function invalidCursor(): RpcError {
  return new RpcError(WireErrorCode.InvalidParams, 'Invalid cursor');
}
