import { INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR } from '@modelcontextprotocol/core/internal';

/**
 * JSON-RPC error codes of both eras (spec §4.1). The first five are JSON-RPC 2.0's own; the rest
 * are MCP's. Kept apart from the platform's wire error codes (`WireErrorCode`), which never reach a client.
 */
export const JsonRpcErrorCode = {
  /** The body is not valid JSON (S-11). */
  ParseError: PARSE_ERROR,
  /** The message is not a valid JSON-RPC request object (S-12): batch, `id: null`, wrong `jsonrpc`... */
  InvalidRequest: INVALID_REQUEST,
  /** Unknown method, or a method behind a capability we do not advertise (S-13). Modern HTTP pairs it with 404 (S-111). */
  MethodNotFound: METHOD_NOT_FOUND,
  /** Parameter validation failed (S-14): unknown tool, bad cursor, bad log level, missing modern `_meta` fields. */
  InvalidParams: INVALID_PARAMS,
  /** Unexpected server-side failure (S-15). */
  InternalError: INTERNAL_ERROR,
  /** Legacy only: `resources/read` on an unknown URI; never emitted under 2026-07-28 (S-16). */
  ResourceNotFound: -32002,
  /** Modern: HTTP headers missing, malformed or different from the body; always HTTP 400 (S-115). */
  HeaderMismatch: -32020,
  /** Modern: the request needs a client capability this request did not declare; HTTP 400 (S-38). */
  MissingRequiredClientCapability: -32021,
  /** Modern: the requested protocol version is not served here; HTTP 400 (S-52). */
  UnsupportedProtocolVersion: -32022,
} as const;
export type JsonRpcErrorCode = (typeof JsonRpcErrorCode)[keyof typeof JsonRpcErrorCode];

/**
 * The platform's own server errors, in the range JSON-RPC 2.0 leaves to implementations
 * (-32000..-32099); neither JSON-RPC's nor MCP's, so kept apart from `JsonRpcErrorCode`.
 */
export const ServerErrorCode = {
  /** The caller sent more requests than it may (task operations, S-291); HTTP 429 with `Retry-After`. */
  TooManyRequests: -32000,
} as const;
export type ServerErrorCode = (typeof ServerErrorCode)[keyof typeof ServerErrorCode];
