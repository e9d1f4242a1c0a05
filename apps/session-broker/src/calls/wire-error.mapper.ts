import { WireErrorCode, type WireError } from '@mcp-platform/protocol-contracts';
import { JsonRpcErrorCode, jsonRpcError, type JsonRpcErrorResponse, type RequestId } from '@mcp-platform/protocol-mcp';

/**
 * Turns a wire error from a platform service into the JSON-RPC error a client sees (STYLE.md §5).
 * The switch is exhaustive: a new `WireErrorCode` does not compile until it is mapped here.
 * Internal details never leak; an internal error carries only its logged error id.
 */
export function wireErrorToJsonRpc(id: RequestId | undefined, error: WireError): JsonRpcErrorResponse {
  const code = error.code;
  switch (code) {
    case WireErrorCode.InvalidParams:
      // The executor's verdict on client input (unknown tool, bad cursor): its message is for the client (S-14).
      return jsonRpcError(id, JsonRpcErrorCode.InvalidParams, error.message, error.data);
    case WireErrorCode.InvalidRequest:
      // The service refused the request shape we forwarded, which only client input (an over-long name, say) can cause.
      return jsonRpcError(id, JsonRpcErrorCode.InvalidParams, 'Invalid params: the request was refused as malformed');
    case WireErrorCode.NotFound:
      return jsonRpcError(id, JsonRpcErrorCode.InvalidParams, error.message, error.data);
    case WireErrorCode.Forbidden:
      return jsonRpcError(id, JsonRpcErrorCode.InvalidRequest, 'Forbidden: the caller may not do this');
    case WireErrorCode.Timeout:
      return jsonRpcError(id, JsonRpcErrorCode.InternalError, 'The request timed out inside the platform; it may be retried');
    case WireErrorCode.Cancelled:
      return jsonRpcError(id, JsonRpcErrorCode.InternalError, 'The request was cancelled');
    case WireErrorCode.Unavailable:
      return jsonRpcError(id, JsonRpcErrorCode.InternalError, 'The service behind this server is unavailable; retry later');
    case WireErrorCode.Internal:
      return jsonRpcError(
        id,
        JsonRpcErrorCode.InternalError,
        error.errorId ? `Internal error (id ${error.errorId})` : 'Internal error',
        error.errorId ? { errorId: error.errorId } : undefined,
      );
    default:
      return assertNever(code);
  }
}

function assertNever(value: never): never {
  throw new Error(`unmapped wire error code: ${String(value)}`);
}
