import type { Logger } from '@nestjs/common';
import { type EncodeContext, type EraCodec, internalError, JSONRPC_VERSION, type RequestId } from '@mcp-platform/protocol-mcp';
import type { MethodOutcome } from '../requests/method-outcome';
import type { LazyResponse } from '../streams/lazy-response';

/**
 * Answers a request with its handler's outcome, worded by the codec of the request's era: a result, a
 * task, a cancel, a request for input, or an error with the HTTP status the codec (or the handler, for
 * a challenge or a rate limit) gives it; a cancelled request gets nothing (S-256).
 */
export function answerWithOutcome(
  codec: EraCodec,
  method: string,
  id: RequestId,
  outcome: MethodOutcome,
  response: LazyResponse,
  context: EncodeContext,
  logger: Logger,
): void {
  const respond = (result: Record<string, unknown>): void => response.respond({ jsonrpc: JSONRPC_VERSION, id, result });
  switch (outcome.kind) {
    case 'result':
      return respond(codec.encodeResult(method, outcome, context));
    case 'task':
      return respond(codec.encodeTask(method === 'tools/call' ? 'tools/call' : 'tasks/get', outcome.task, context));
    case 'cancel': {
      const answer = codec.encodeCancel(outcome.cancel, context);
      if ('result' in answer) return respond(answer.result);
      const { error, status } = codec.encodeError(answer.error);
      return response.respond({ jsonrpc: JSONRPC_VERSION, id, error }, status);
    }
    case 'input_required': {
      const encoded = codec.encodeInputRequired(outcome, context);
      if (encoded) return respond(encoded);
      // Only the stateless wire asks by result; a handler doing so on another is the platform's bug, not the client's.
      logger.error(`${method} (${codec.era}) answered input requests its wire cannot carry`);
      return response.respond(internalError(id, 'Internal error: the request asked for input this protocol version cannot carry'));
    }
    case 'error': {
      const encoded = codec.encodeError(outcome.error);
      return response.respond({ jsonrpc: JSONRPC_VERSION, id, error: encoded.error }, outcome.status ?? encoded.status, outcome.headers);
    }
    case 'none':
      return response.close();
  }
}
