import type { Logger } from '@nestjs/common';
import { internalError } from '@mcp-platform/protocol-mcp';
import type { IdSource } from '@mcp-platform/shared-clock';
import { isRpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import { wireErrorToJsonRpc } from '../calls/wire-error.mapper';
import type { MethodCall } from './method-call';
import { failure, type MethodOutcome } from './method-outcome';

/** `{ nextCursor }` when the owner reported another page, else nothing (S-240). */
export function nextCursorOf(page: { nextCursor?: string | undefined }): { nextCursor?: string } {
  return page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor };
}

/**
 * A failure from a platform service as the outcome the client sees: wire errors through the exhaustive
 * mapper (their details logged when they are the platform's fault), anything else as an internal error
 * whose id (from the caller's IdSource) is logged with the stack (S-15).
 */
export function platformFailure(logger: Logger, ids: IdSource, method: string, error: unknown): MethodOutcome {
  if (isRpcError(error)) {
    if (error.code === WireErrorCode.Internal || error.code === WireErrorCode.Unavailable || error.code === WireErrorCode.Timeout) {
      logger.warn(`${method}: ${error.code}: ${error.message}`);
    }
    return failure(wireErrorToJsonRpc(undefined, error.toWire()));
  }
  const errorId = ids.newId();
  logger.error(`${method}: unexpected failure (error id ${errorId}): ${(error as Error)?.stack ?? String(error)}`);
  return failure(internalError(undefined, `Internal error (id ${errorId})`, { errorId }));
}

/** The virtual server a store request addresses; `public` comes from the executor's description the broker caches. */
export function storeAddress(call: MethodCall): { tenant: string; server: string; public: boolean } {
  return { tenant: call.virtualServer.tenant, server: call.virtualServer.name, public: call.virtualServer.public };
}

/** The bus headers of a request on behalf of the caller: the principal, never the token (S-146). */
export function principalHeaders(call: MethodCall) {
  return { context: { principal: call.principal } };
}
