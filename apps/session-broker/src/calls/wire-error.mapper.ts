import { type WireError, WireErrorCode } from '@mcp-platform/protocol-contracts';
import {
  BASELINE_SCOPE,
  headerMismatchError,
  jsonRpcError,
  JsonRpcErrorCode,
  type JsonRpcErrorResponse,
  missingRequiredClientCapabilityError,
  type RequestId,
} from '@mcp-platform/protocol-mcp';

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
    case WireErrorCode.InsufficientScope: {
      // The HTTP answer (403 + step-up challenge, S-142) is the broker's; the body names the scopes too.
      const scopes = requiredScopes(error.data);
      return jsonRpcError(id, JsonRpcErrorCode.InvalidRequest, `Forbidden: insufficient scope; this operation needs: ${scopes.join(' ')}`, { scopes });
    }
    case WireErrorCode.Unsupported:
      // spec S-197: a task/non-task mismatch with the tool's execution.taskSupport is "method not found".
      return jsonRpcError(id, JsonRpcErrorCode.MethodNotFound, error.message, error.data);
    case WireErrorCode.MissingClientCapability:
      // spec S-38: -32021 naming what the request lacks (HTTP 400 by the modern codec).
      return missingRequiredClientCapabilityError(id, requiredCapabilitiesOf(error.data));
    case WireErrorCode.HeaderMismatch:
      // spec S-115, S-116: the executor's message names the header (HTTP 400 by the modern codec).
      return headerMismatchError(id, error.message);
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

/** The token characters of RFC 6750 §3 (`scope-token`), so nothing odd reaches a challenge header. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * The scopes an `INSUFFICIENT_SCOPE` error names (`data.scopes`), each a valid scope token, in order;
 * the baseline `mcp` alone when the data is missing or unusable.
 */
export function requiredScopes(data: unknown): string[] {
  const scopes = (data as { scopes?: unknown } | undefined)?.scopes;
  const valid = Array.isArray(scopes) ? scopes.filter((scope): scope is string => typeof scope === 'string' && SCOPE_TOKEN.test(scope)) : [];
  return valid.length > 0 ? [...new Set(valid)] : [BASELINE_SCOPE];
}

/** The `requiredCapabilities` of a `MISSING_CLIENT_CAPABILITY` error: an object, or `{}` when the data is unusable. */
function requiredCapabilitiesOf(data: unknown): Record<string, unknown> {
  const required = (data as { requiredCapabilities?: unknown } | undefined)?.requiredCapabilities;
  return typeof required === 'object' && required !== null && !Array.isArray(required) ? (required as Record<string, unknown>) : {};
}

function assertNever(value: never): never {
  throw new Error(`unmapped wire error code: ${String(value)}`);
}
