import { ClientCapabilitiesSchema, RequestIdSchema } from '@modelcontextprotocol/core';
import { JSONRPC_VERSION } from '@modelcontextprotocol/core/internal';
import { z } from 'zod';
import { JsonRpcErrorCode } from './error-codes';
import { SUPPORTED_PROTOCOL_VERSIONS } from './versions';

/** A JSON-RPC request id: a string or an integer, never null (S-2). */
export type RequestId = z.infer<typeof RequestIdSchema>;

/** The error member of an error response (S-7). */
export const JsonRpcErrorObjectSchema = z.object({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});
export type JsonRpcErrorObject = z.infer<typeof JsonRpcErrorObjectSchema>;

/** An error response; `id` is absent only when the request's id could not be read (S-7). */
export const JsonRpcErrorResponseSchema = z.object({
  jsonrpc: z.literal(JSONRPC_VERSION),
  id: RequestIdSchema.optional(),
  error: JsonRpcErrorObjectSchema,
});
export type JsonRpcErrorResponse = z.infer<typeof JsonRpcErrorResponseSchema>;

/** `data` of `-32022` UnsupportedProtocolVersionError (S-52). */
export const UnsupportedProtocolVersionErrorDataSchema = z.object({
  /** The versions the server serves. */
  supported: z.array(z.string()),
  /** The version the request asked for. */
  requested: z.string(),
});
export type UnsupportedProtocolVersionErrorData = z.infer<typeof UnsupportedProtocolVersionErrorDataSchema>;

/** `data` of `-32021` MissingRequiredClientCapabilityError (S-38): the capabilities the request lacks. */
export const MissingRequiredClientCapabilityErrorDataSchema = z.object({
  requiredCapabilities: ClientCapabilitiesSchema,
});
export type MissingRequiredClientCapabilityErrorData = z.infer<typeof MissingRequiredClientCapabilityErrorDataSchema>;

/** Builds an error response; pass `undefined` as id when the request's id is unreadable. */
export function jsonRpcError(id: RequestId | undefined, code: number, message: string, data?: unknown): JsonRpcErrorResponse {
  return {
    jsonrpc: JSONRPC_VERSION,
    ...(id === undefined ? {} : { id }),
    error: data === undefined ? { code, message } : { code, message, data },
  };
}

/** `-32700`: the body is not JSON; the id is never readable then. */
export function parseError(message = 'Parse error: the body is not valid JSON'): JsonRpcErrorResponse {
  return jsonRpcError(undefined, JsonRpcErrorCode.ParseError, message);
}

/** `-32600`: not a valid JSON-RPC request. */
export function invalidRequestError(id: RequestId | undefined, message: string): JsonRpcErrorResponse {
  return jsonRpcError(id, JsonRpcErrorCode.InvalidRequest, message);
}

/** `-32601`: unknown method (or one behind a capability we do not advertise). */
export function methodNotFoundError(id: RequestId | undefined, method: string): JsonRpcErrorResponse {
  return jsonRpcError(id, JsonRpcErrorCode.MethodNotFound, `Method not found: ${truncate(method)}`);
}

/** `-32602`: invalid params. */
export function invalidParamsError(id: RequestId | undefined, message: string, data?: unknown): JsonRpcErrorResponse {
  return jsonRpcError(id, JsonRpcErrorCode.InvalidParams, message, data);
}

/** `-32603`: internal error. */
export function internalError(id: RequestId | undefined, message: string, data?: unknown): JsonRpcErrorResponse {
  return jsonRpcError(id, JsonRpcErrorCode.InternalError, message, data);
}

/** `-32020` HeaderMismatch (S-115). */
export function headerMismatchError(id: RequestId | undefined, message: string): JsonRpcErrorResponse {
  return jsonRpcError(id, JsonRpcErrorCode.HeaderMismatch, `Header mismatch: ${message}`);
}

/** `-32021` MissingRequiredClientCapability with the missing capabilities (S-38). */
export function missingRequiredClientCapabilityError(
  id: RequestId | undefined,
  requiredCapabilities: MissingRequiredClientCapabilityErrorData['requiredCapabilities'],
): JsonRpcErrorResponse {
  const names = Object.keys(requiredCapabilities).join(', ');
  return jsonRpcError(id, JsonRpcErrorCode.MissingRequiredClientCapability, `Missing required client capabilities: ${names}`, {
    requiredCapabilities,
  } satisfies MissingRequiredClientCapabilityErrorData);
}

/** `-32022` UnsupportedProtocolVersion listing what we serve (S-52). */
export function unsupportedProtocolVersionError(
  id: RequestId | undefined,
  requested: string,
  supported: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS,
): JsonRpcErrorResponse {
  return jsonRpcError(id, JsonRpcErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', {
    supported: [...supported],
    requested: truncate(requested),
  } satisfies UnsupportedProtocolVersionErrorData);
}

/** Keeps hostile input from growing our answers (and logs) without bound. */
function truncate(text: string, max = 128): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
