import { z } from 'zod';
import { LoggingLevelSchema } from '@mcp-platform/protocol-mcp';
import { defineEvent } from '../define-contract';

/** A tool call's progress or log message, routed to the broker replica that holds the caller's stream. */
export const callNotified = defineEvent({
  subject: 'session-broker.v1.call.notified',
  delivery: 'routed',
  payload: z.object({
    callId: z.string().min(1),
    notification: z.discriminatedUnion('method', [
      z.object({
        method: z.literal('notifications/progress'),
        params: z.object({ progress: z.number(), total: z.number().optional(), message: z.string().optional() }),
      }),
      z.object({
        method: z.literal('notifications/message'),
        params: z.object({ level: LoggingLevelSchema, logger: z.string().optional(), data: z.unknown() }),
      }),
    ]),
  }),
});

/**
 * A running call asks its client something (sampling, elicitation, roots; legacy era): routed to the
 * broker replica holding the call's stream, which sends it there as a JSON-RPC request with id
 * `inputId` (or on the session's GET stream when the call's stream is gone, §3.2.3).
 */
export const callInputRequested = defineEvent({
  subject: 'session-broker.v1.call.input-requested',
  delivery: 'routed',
  payload: z.object({
    callId: z.string().min(1).max(128),
    /** `<callId>#<n>`: unique in the session across replicas, and it names the call, so any replica can route the answer. */
    inputId: z.string().min(1).max(160),
    method: z.enum(['sampling/createMessage', 'elicitation/create', 'roots/list']),
    params: z.record(z.string(), z.unknown()).optional(),
  }),
});

/**
 * A running call's URL-mode elicitation finished out of band (legacy era, S-327): routed to the broker
 * replica holding the call's stream, which sends `notifications/elicitation/complete` there, or on the
 * session's GET stream wherever it is when the call's stream is gone (or the call has answered).
 */
export const callElicitationCompleted = defineEvent({
  subject: 'session-broker.v1.call.elicitation-completed',
  delivery: 'routed',
  payload: z.object({
    callId: z.string().min(1).max(128),
    /** The legacy session the call belongs to: its client, and only it, got the elicitation. */
    sessionId: z.string().min(1).max(256),
    /** The `elicitationId` the call's `elicitation/create` request carried (URL mode). */
    elicitationId: z.string().max(4_096),
  }),
});
