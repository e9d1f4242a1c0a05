import { jsonRpcError, JsonRpcErrorCode, type JsonRpcErrorResponse, type RequestId } from '@mcp-platform/protocol-mcp';
import { type ResponseTarget, sseEvent } from '../streams/lazy-response';

/** `Retry-After` on a stopping replica's refusals: by then the load balancer sends elsewhere (readiness failed at once). */
export const SHUTDOWN_RETRY_AFTER = '1';

/** The answer to a request that started before shutdown and did not finish within the grace. */
export function shutdownError(id: RequestId | undefined): JsonRpcErrorResponse {
  return jsonRpcError(id, JsonRpcErrorCode.InternalError, 'Service Unavailable: the server shut down before the request finished; retry it');
}

/** The answer to new work on a stopping replica. */
export function shuttingDownError(id: RequestId | undefined): JsonRpcErrorResponse {
  return jsonRpcError(id, JsonRpcErrorCode.InternalError, 'Service Unavailable: this server is shutting down; retry the request');
}

/**
 * Ends an exchange the drain found still open at the end of the grace and whose owner it cannot reach
 * (a `tasks/result` waiting for its task): 503 with the error while nothing was sent, the error as the
 * stream's last event otherwise. Writes through the raw response; the code that owned it sees the
 * exchange ended and writes nothing more.
 */
export function endAtShutdown(target: ResponseTarget, id: RequestId | undefined): void {
  if (target.writableEnded) return;
  const error = shutdownError(id);
  if (target.headersSent) {
    target.end(sseEvent(error));
    return;
  }
  const body = JSON.stringify(error);
  target.writeHead(503, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'retry-after': SHUTDOWN_RETRY_AFTER });
  target.end(body);
}
