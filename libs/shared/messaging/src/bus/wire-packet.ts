import { type ReplyEnvelope, type RpcContract, WireErrorCode, WireErrorSchema } from '@mcp-platform/protocol-contracts';
import { RpcError } from './rpc-error';

/**
 * The packet format of @nestjs/microservices, so our typed client speaks to Nest's NATS server:
 * requests are `{ pattern, data, id }`, events `{ pattern, data }`, replies `{ id, response | err, isDisposed }`.
 */
export interface RequestPacket {
  pattern: string;
  data: unknown;
  id: string;
}
export interface EventPacket {
  pattern: string;
  data: unknown;
}
export interface ReplyPacket {
  id?: string;
  response?: unknown;
  err?: unknown;
  isDisposed?: boolean;
}

/** Validates an outgoing request; a bad payload is the caller's bug and never leaves the process. */
export function parseOutgoing<C extends RpcContract>(contract: C, payload: unknown): unknown {
  const parsed = contract.request.safeParse(payload);
  if (!parsed.success) {
    throw new RpcError(WireErrorCode.InvalidRequest, `invalid request for ${contract.subject}: ${parsed.error.message}`);
  }
  return parsed.data;
}

/** Unwraps a reply packet into the contract's response, or throws the typed error it carries. */
export function unwrapReply<C extends RpcContract>(contract: C, reply: ReplyPacket): unknown {
  if (reply.err !== undefined && reply.err !== null) {
    const message = typeof reply.err === 'string' ? reply.err : JSON.stringify(reply.err);
    // Nest answers "There is no matching message handler defined" when nothing serves the subject.
    const code = /no matching message handler/i.test(message) ? WireErrorCode.Unavailable : WireErrorCode.Internal;
    throw new RpcError(code, `${contract.subject}: ${message}`);
  }
  const envelope = reply.response as ReplyEnvelope<unknown> | undefined;
  if (!envelope || typeof envelope !== 'object' || typeof envelope.ok !== 'boolean') {
    throw new RpcError(WireErrorCode.Internal, `${contract.subject}: reply is not an envelope`);
  }
  if (!envelope.ok) {
    const error = WireErrorSchema.safeParse(envelope.error);
    if (!error.success) throw new RpcError(WireErrorCode.Internal, `${contract.subject}: malformed error envelope`);
    throw RpcError.fromWire(error.data);
  }
  const parsed = contract.response.safeParse(envelope.value);
  if (!parsed.success) {
    throw new RpcError(WireErrorCode.Internal, `${contract.subject}: reply does not match the contract: ${parsed.error.message}`);
  }
  return parsed.data;
}
