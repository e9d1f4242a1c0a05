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
