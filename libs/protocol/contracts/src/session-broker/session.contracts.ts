import { z } from 'zod';
import { defineEvent } from '../define-contract';

/**
 * A legacy session ended (DELETE, expiry, or `evicted`: its caller opened more sessions than the
 * per-caller cap lets it keep, and this was its least recently used); every broker replica closes its
 * streams for it (S-93).
 */
export const sessionClosed = defineEvent({
  subject: 'session-broker.v1.session.closed',
  delivery: 'all',
  payload: z.object({ sessionId: z.string().min(1), reason: z.enum(['deleted', 'expired', 'evicted']) }),
});

/**
 * A message for a legacy session's GET stream (S-88), from the replica that has it to send to the one
 * that holds the stream: every replica hears it, the one holding the session's GET stream writes it.
 */
export const sessionMessage = defineEvent({
  subject: 'session-broker.v1.session.message-posted',
  delivery: 'all',
  payload: z.object({ sessionId: z.string().min(1), message: z.record(z.string(), z.unknown()) }),
});
