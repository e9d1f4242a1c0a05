import { z } from 'zod';
import { RequestIdSchema } from '@mcp-platform/protocol-mcp';
import { WireErrorSchema } from '../common/wire-error';
import { defineEvent } from '../define-contract';

/** A JSON-RPC message for the client, as it goes out on the wire (`jsonrpc`, `method`, `params`, `id` for requests). */
const OutgoingMessageSchema = z.record(z.string(), z.unknown());

/**
 * One message of a running call for its client (progress, log, a request for sampling, elicitation or
 * roots, `notifications/elicitation/complete`), routed to the broker replica holding the call's
 * stream, which writes it there. A legacy call's messages are in its stream's log first: `position`
 * is where (the broker sends it in the SSE event id, so the client can resume after it, S-89/S-90).
 */
export const callMessage = defineEvent({
  subject: 'session-broker.v1.call.message-posted',
  delivery: 'routed',
  payload: z.object({
    callId: z.string().min(1).max(128),
    position: z.number().int().positive().optional(),
    message: OutgoingMessageSchema,
  }),
});

/** How often an executor replica tells each broker replica which of its calls it is still running ({@link callsAlive}). */
export const CALL_HEARTBEAT_MS = 2_000;

/**
 * How many heartbeats in a row a broker replica may miss for a call before it gives the call up: its
 * executor died (kill -9, a lost host) and will never answer. The client is then told so instead of
 * waiting for the call's timeout.
 */
export const CALL_HEARTBEATS_MISSED = 4;

/**
 * The calls an executor replica is running for this broker replica (routed to it), every
 * {@link CALL_HEARTBEAT_MS}. Any message of a call counts as well; a call the broker has not heard of
 * for {@link CALL_HEARTBEATS_MISSED} heartbeats ends with an error saying its executor stopped.
 */
export const callsAlive = defineEvent({
  subject: 'session-broker.v1.call.heartbeat-posted',
  delivery: 'routed',
  payload: z.object({ callIds: z.array(z.string().min(1).max(128)).max(100_000) }),
});

/**
 * A running legacy call's tool asked the broker to close the client's connection now (SSE polling,
 * S-81): the broker holding the call's stream sends `retry` and ends the connection without ending
 * the call; the client resumes with `Last-Event-ID` on any replica and reads the rest from the log.
 */
export const callDisconnectRequested = defineEvent({
  subject: 'session-broker.v1.call.disconnect-requested',
  delivery: 'routed',
  payload: z.object({ callId: z.string().min(1).max(128) }),
});

/**
 * A request of a running legacy task for its client (sampling, elicitation, roots; S-286), with
 * `related-task` in its `_meta` (S-285): every broker replica hears it and writes it on the `tasks/result`
 * streams it holds for that task (its owner's, in any session). Sent again whenever such a stream opens,
 * until answered; a stream writes each request once.
 */
export const taskMessage = defineEvent({
  subject: 'session-broker.v1.task.message-posted',
  delivery: 'all',
  payload: z.object({
    taskId: z.string().min(1).max(128),
    message: OutgoingMessageSchema,
  }),
});

/**
 * What a legacy call's stream log holds, one entry per event: a message for the client, or, last, the
 * call's outcome (the executor's answer as the broker would have received it, with the client's
 * JSON-RPC id), from which any broker replica builds the final JSON-RPC response when it replays.
 */
export const CallStreamEntrySchema = z.union([
  z.strictObject({ message: OutgoingMessageSchema }),
  z.strictObject({
    requestId: RequestIdSchema,
    outcome: z.union([z.strictObject({ result: z.record(z.string(), z.unknown()) }), z.strictObject({ error: WireErrorSchema })]),
  }),
]);
export type CallStreamEntry = z.infer<typeof CallStreamEntrySchema>;
export type CallOutcomeEntry = Extract<CallStreamEntry, { outcome: unknown }>;
