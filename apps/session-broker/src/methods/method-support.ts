import type { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { isRpcError, WireErrorCode } from '@mcp-platform/shared-messaging';
import { internalError, invalidParamsError, type JsonRpcErrorResponse, type ProtocolEra, type RequestId } from '@mcp-platform/protocol-mcp';
import { wireErrorToJsonRpc } from '../calls/wire-error.mapper';
import { failure, type MethodOutcome } from './method-outcome';

/** Longest cursor the edge forwards; the data's owner judges the rest (S-243). */
const MAX_CURSOR_LENGTH = 1024;

/**
 * The `cursor` of a paginated list request (S-239): `{}` for the first page, `{ cursor }` for a later
 * one, or the `-32602` outcome for a cursor that is not a string or is absurdly long (S-243).
 */
export function readCursor(requestId: RequestId, params: Record<string, unknown> | undefined): { cursor?: string } | { failure: MethodOutcome } {
  const cursor = params?.['cursor'];
  if (cursor === undefined) return {};
  if (typeof cursor !== 'string' || cursor.length > MAX_CURSOR_LENGTH) {
    return { failure: failure(invalidParamsError(requestId, `Invalid params: cursor must be a string of at most ${MAX_CURSOR_LENGTH} characters`)) };
  }
  return { cursor };
}

/** What a platform service answers for a cacheable result (S-246). */
export interface CachingHints {
  ttlMs: number;
  cacheScope: 'public' | 'private';
}

/**
 * A cacheable result as the era carries it: modern results add the caching hints the data's owner
 * computed (S-246, S-214, S-218); legacy results have no such fields.
 */
export function withCachingHints(era: ProtocolEra, body: Record<string, unknown>, hints: CachingHints): Record<string, unknown> {
  return era === 'modern' ? { ...body, ttlMs: hints.ttlMs, cacheScope: hints.cacheScope } : body;
}

/** `{ nextCursor }` when the owner reported another page, else nothing (S-240). */
export function nextCursorOf(page: { nextCursor?: string | undefined }): { nextCursor?: string } {
  return page.nextCursor === undefined ? {} : { nextCursor: page.nextCursor };
}

/**
 * A failure from a platform service as the JSON-RPC error the client sees: wire errors through the
 * exhaustive mapper (their details logged when they are the platform's fault), anything else as an
 * internal error whose id is logged with the stack (S-211).
 */
export function platformFailureToJsonRpc(logger: Logger, requestId: RequestId, method: string, error: unknown): JsonRpcErrorResponse {
  if (isRpcError(error)) {
    if (error.code === WireErrorCode.Internal || error.code === WireErrorCode.Unavailable || error.code === WireErrorCode.Timeout) {
      logger.warn(`${method}: ${error.code}: ${error.message}`);
    }
    return wireErrorToJsonRpc(requestId, error.toWire());
  }
  const errorId = randomUUID();
  logger.error(`${method}: unexpected failure (error id ${errorId}): ${(error as Error)?.stack ?? String(error)}`);
  return internalError(requestId, `Internal error (id ${errorId})`, { errorId });
}
